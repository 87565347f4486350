import Foundation
import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct GaussianBlurTests {
    @Test(arguments: [(37, 23, 1, 2.0), (37, 23, 3, 1.3), (5, 41, 1, 6.0), (1, 1, 3, 4.0), (64, 9, 1, 11.0)])
    func matchesScipy(width: Int, height: Int, channels: Int, sigma: Double) throws {
        let raster = EngineFixtures.noise(width: width, height: height, channels: channels, seed: 7)
        let node = try EngineFixtures.source(raster).applying(GaussianBlur(sigma: sigma))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
        let reference = try PythonReference("gaussian.py").run(
            [raster.samples], arguments: ["\(width)", "\(height)", "\(channels)", "\(sigma)"])
        #expect(EngineFixtures.maxDifference(ours.samples, reference) < 2e-5)
    }

    /// A mask-like plane (large flat areas, sharp edges, a noisy patch) takes the flat-block shortcuts in both
    /// passes; every value must still be exactly the plain tap-by-tap sum (a chain of fused multiply-adds in
    /// tap order, edges clamped), written out here from the definition.
    @Test(arguments: [(203, 157, 1, 3.0), (131, 77, 3, 2.0), (70, 300, 1, 6.0)])
    func flatBlocksGiveTheTapSums(width: Int, height: Int, channels: Int, sigma: Double) throws {
        var raster = Raster<Float>(width: width, height: height, channels: channels, repeating: 0)
        let noise = EngineFixtures.noise(width: width, height: height, channels: channels, seed: 5)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let inDisc = (x - width / 2) * (x - width / 2) + (y - height / 3) * (y - height / 3) < width * width / 9
                    let patch = x > width * 3 / 4 && y > height * 2 / 3
                    // Flat values whose products with the weights round (0.7, 0.3, 0.1...), so a shortcut that
                    // summed in another order would show.
                    raster[x, y, c] = patch ? noise[x, y, c] : (inDisc ? 0.7 : (y > height * 3 / 4 ? 0.3 : 0.1 + 0.2 * Float(c)))
                }
            }
        }
        let node = try EngineFixtures.source(raster).applying(GaussianBlur(sigma: sigma))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))

        let radius = Int((3 * sigma).rounded(.up))
        let exact = (-radius...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let weights = exact.map { Float($0 / exact.reduce(0, +)) }
        func tapSum(_ sample: (Int) -> Float) -> Float {
            var a: Float = 0
            for (k, w) in weights.enumerated() { a = a.addingProduct(w, sample(k - radius)) }
            return a
        }
        var horizontal = raster
        for y in 0..<height { for x in 0..<width { for c in 0..<channels {
            horizontal[x, y, c] = tapSum { raster[min(width - 1, max(0, x + $0)), y, c] }
        } } }
        var expected = raster
        for y in 0..<height { for x in 0..<width { for c in 0..<channels {
            expected[x, y, c] = tapSum { horizontal[x, min(height - 1, max(0, y + $0)), c] }
        } } }
        #expect(ours.samples == expected.samples)
        // Any region and thread count: the same values.
        let rect = PixelRect(x: width / 5, y: height / 7, width: width / 2 + 3, height: height / 2 + 1)
        let part = try Evaluator(context: RenderContext(threads: 3)).render(node, RenderTarget(size: node.extent, region: rect))
        #expect(part.samples == ours.cropped(to: rect).samples)
    }

    /// A blur of an upscaled plane reads the upscale row by row (never materialised): the values must be those
    /// of the same blur over the upscaled plane rendered first, for the whole frame and for any region.
    @Test(arguments: [(40, 30, 160, 120, 2.0), (33, 17, 100, 51, 6.0), (9, 9, 70, 70, 1.0)])
    func blurOfAnUpscaleStreamsTheSameValues(inW: Int, inH: Int, outW: Int, outH: Int, sigma: Double) throws {
        var small = EngineFixtures.noise(width: inW, height: inH, channels: 1, seed: 11)
        for i in small.samples.indices where i % 5 != 0 { small.samples[i] = small.samples[i] > 0.5 ? 1 : 0 }
        let up = try EngineFixtures.source(small).applying(Resample(to: PixelSize(width: outW, height: outH)))
        let streamed = try up.applying(GaussianBlur(sigma: sigma))
        let frame = RenderTarget(size: streamed.extent)
        let upscaled = try Evaluator().render(up, frame)
        let stored = Raster<Float>(width: outW, height: outH, channels: 1, samples: upscaled.samples)
        let reference = try Evaluator().render(EngineFixtures.source(stored, id: "upscaled").applying(GaussianBlur(sigma: sigma)), frame)
        #expect(try Evaluator().render(streamed, frame).samples == reference.samples)
        let rect = PixelRect(x: outW / 3, y: outH / 4, width: outW / 2, height: outH / 2)
        let part = try Evaluator(context: RenderContext(threads: 3)).render(streamed, RenderTarget(size: streamed.extent, region: rect))
        #expect(part.samples == reference.cropped(to: rect).samples)
    }

    /// Large σ takes the constant-cost pyramid: within 0.5 % of SciPy's exact Gaussian on a noisy gradient.
    @Test(arguments: [(97, 61, 1, 14.0), (130, 90, 3, 30.0), (50, 7, 1, 60.0)])
    func largeSigmaIsCloseToScipy(width: Int, height: Int, channels: Int, sigma: Double) throws {
        var raster = EngineFixtures.noise(width: width, height: height, channels: channels, seed: 21)
        for i in raster.samples.indices { raster.samples[i] = 0.3 * raster.samples[i] + Float((i / channels) % width) / Float(width) }
        let node = try EngineFixtures.source(raster).applying(GaussianBlur(sigma: sigma))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
        let reference = try PythonReference("gaussian.py").run(
            [raster.samples], arguments: ["\(width)", "\(height)", "\(channels)", "\(sigma)"])
        #expect(EngineFixtures.maxDifference(ours.samples, reference) < 0.0065)
        let rect = PixelRect(x: width / 3, y: height / 4, width: width / 2, height: max(1, height / 3))
        let part = try Evaluator(context: RenderContext(threads: 3)).render(node, RenderTarget(size: node.extent, region: rect))
        #expect(part.samples == ours.cropped(to: rect).samples)
    }

    @Test func zeroSigmaIsIdentity() throws {
        let raster = EngineFixtures.noise(width: 9, height: 4, channels: 3)
        let node = try EngineFixtures.source(raster).applying(GaussianBlur(sigma: 0))
        #expect(try Evaluator().render(node, RenderTarget(size: node.extent)).samples == raster.samples)
    }

    @Test func rejectsNegativeSigma() {
        #expect(throws: RenderError.self) { try GaussianBlur(sigma: -1) }
        #expect(throws: RenderError.self) { try GaussianBlur(sigma: .nan) }
    }
}
