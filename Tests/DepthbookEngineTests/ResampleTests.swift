import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct ResampleTests {
    /// An enlarged input (a depth mask brought up to the photo) is rendered at no less than half the output's
    /// pixels across, up to its native size; a reduced one at its native size times the render scale.
    @Test func enlargedInputsAreRenderedAtHalfTheOutputsPixelsAtLeast() throws {
        let up = try Resample(to: PixelSize(width: 1000, height: 500))
        func input(_ native: PixelSize, at width: Int, of resample: Resample) -> PixelSize {
            let target = RenderTarget(size: PixelSize(width: width, height: width * resample.size.height / resample.size.width))
            return resample.inputTargets(for: target, extent: resample.size, inputExtents: [native])[0].size
        }
        // 200 px of a 1000-px extent: the photo's scale would give 20 px; half the output is 100, the native size.
        #expect(input(PixelSize(width: 100, height: 50), at: 200, of: up) == PixelSize(width: 100, height: 50))
        #expect(input(PixelSize(width: 100, height: 50), at: 100, of: up) == PixelSize(width: 50, height: 25))
        // At full size the render scale is 1: the input at its native size, as before.
        #expect(input(PixelSize(width: 100, height: 50), at: 1000, of: up) == PixelSize(width: 100, height: 50))
        // A reduction keeps the render scale: 4000 px to a 1000-px extent at 200 px reads the input at 800.
        #expect(input(PixelSize(width: 4000, height: 2000), at: 200, of: up) == PixelSize(width: 800, height: 400))
    }

    @Test(arguments: [
        (7, 5, 1, 29, 21, ResamplingMethod.bilinear), (7, 5, 3, 28, 20, .bicubic), (13, 11, 1, 40, 31, .lanczos),
        (40, 30, 1, 13, 9, .bilinear), (40, 30, 3, 10, 7, .lanczos), (9, 8, 1, 23, 5, .nearest),
        (1, 1, 1, 5, 3, .bicubic), (33, 1, 1, 8, 1, .bilinear),
        // Over 64 output rows: the resampler works in bands of rows, and these cross band edges.
        (150, 400, 3, 61, 170, .bilinear), (30, 50, 1, 17, 140, .lanczos),
    ])
    func matchesNumpy(inW: Int, inH: Int, channels: Int, outW: Int, outH: Int, method: ResamplingMethod) throws {
        let raster = EngineFixtures.noise(width: inW, height: inH, channels: channels, seed: 3)
        let node = try EngineFixtures.source(raster).applying(Resample(to: PixelSize(width: outW, height: outH), method: method))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
        let reference = try PythonReference("resize.py").run(
            [raster.samples], arguments: ["\(inW)", "\(inH)", "\(channels)", "\(outW)", "\(outH)", method.rawValue])
        #expect(EngineFixtures.maxDifference(ours.samples, reference) < 1e-5)
    }

    /// A photo's image is resampled from its bytes as they are: the same as resampling the bytes / 255 (numpy),
    /// for the whole frame and for a tile of it.
    @Test(arguments: [PixelRect(x: 0, y: 0, width: 97, height: 131), PixelRect(x: 13, y: 70, width: 40, height: 61)])
    func photoImageResamplesFromItsBytes(region: PixelRect) throws {
        let photo = EngineFixtures.photo(width: 230, height: 310, seed: 9)
        let node = try Node(PhotoSource(photo: photo, plane: .image, photoID: "bytes"))
        let size = PixelSize(width: 97, height: 131)
        let ours = try Evaluator().render(node, RenderTarget(size: size, region: region))
        let reference = try PythonReference("resize.py").run(
            [photo.image.samples.map { Float($0) / 255 }], arguments: ["230", "310", "3", "97", "131", "bilinear"])
        var tile: [Float] = []
        for y in region.y..<(region.y + region.height) {
            tile += reference[((y * 97 + region.x) * 3)..<((y * 97 + region.x + region.width) * 3)]
        }
        #expect(EngineFixtures.maxDifference(ours.samples, tile) < 1e-5)
    }

    /// Hand-derived: a 2×1 row [0, 1] enlarged 2× bilinearly samples at x = −0.25, 0.25, 0.75, 1.25.
    @Test func bilinearHandValues() throws {
        let raster = Raster<Float>(width: 2, height: 1, channels: 1, samples: [0, 1])
        let node = try EngineFixtures.source(raster).applying(Resample(to: PixelSize(width: 4, height: 1)))
        let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
        #expect(out == [0, 0.25, 0.75, 1])
    }

    /// A depth source with holes: reductions never mix NaN into real values; all-hole areas stay NaN.
    @Test func holesAreNeverAveraged() throws {
        var samples = [Float](repeating: 2, count: 8 * 8)
        for y in 0..<8 { for x in 0..<4 { samples[y * 8 + x] = .nan } }
        samples[7 * 8 + 7] = 4
        let raster = Raster<Float>(width: 8, height: 8, channels: 1, samples: samples)
        let node = try EngineFixtures.source(raster, hasHoles: true)
        let out = try Evaluator().render(node, RenderTarget(size: PixelSize(width: 4, height: 4))).samples
        for y in 0..<4 {
            #expect(out[y * 4].isNaN)
            #expect(!out[y * 4 + 3].isNaN && out[y * 4 + 3] >= 2 && out[y * 4 + 3] <= 4)
        }
    }

    /// A flat area of a depth plane resampled by any ratio keeps its value exactly, so a threshold whose cut is
    /// that value keeps all of it (a rounding either way made a grid of dropped rows and columns).
    @Test(arguments: [(768, 4032), (768, 736), (576, 368), (7, 29)])
    func flatDepthStaysExact(inW: Int, outW: Int) throws {
        let level: Float = 0.8173828  // a half-float disparity level: not a short binary fraction
        var samples = [Float](repeating: level, count: inW * 3)
        samples[0] = .nan
        let raster = Raster<Float>(width: inW, height: 3, channels: 1, samples: samples)
        let node = try EngineFixtures.source(raster, hasHoles: true)
        let out = try Evaluator().render(node, RenderTarget(size: PixelSize(width: outW, height: 7))).samples
        let valid = out.filter { !$0.isNaN }
        #expect(valid.count > out.count / 2)
        #expect(valid.allSatisfy { $0 == level })
    }
}
