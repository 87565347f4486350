import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct MorphologyTests {
    @Test(arguments: Morphology.Operation.allCases)
    func matchesScipyExactly(operation: Morphology.Operation) throws {
        for (shape, radius, channels) in [(Morphology.Shape.disc, 4.0, 1), (.square, 3.0, 1), (.disc, 2.5, 3), (.disc, 9.0, 1)] {
            let raster = EngineFixtures.noise(width: 33, height: 21, channels: channels, seed: 5)
            let node = try EngineFixtures.source(raster).applying(Morphology(operation, shape: shape, radius: radius))
            let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
            let reference = try PythonReference("morphology.py").run(
                [raster.samples], arguments: ["33", "21", "\(channels)", operation.rawValue, shape.rawValue, "\(radius)"])
            #expect(ours.samples == reference, "\(operation) \(shape) r=\(radius)")
        }
    }

    /// A binary mask with a one-pixel gap: closing with r = 1 fills it; opening removes an isolated dot.
    @Test func closingFillsGapsOpeningRemovesSpecks() throws {
        var samples = [Float](repeating: 0, count: 9 * 5)
        for x in 1..<8 where x != 4 { samples[2 * 9 + x] = 1 }
        samples[0 * 9 + 8] = 1
        let mask = try EngineFixtures.source(Raster(width: 9, height: 5, channels: 1, samples: samples))
        let closed = try Evaluator().render(mask.applying(Morphology(.close, shape: .square, radius: 1)), RenderTarget(size: mask.extent))
        #expect(closed.samples[2 * 9 + 4] == 1)
        let opened = try Evaluator().render(mask.applying(Morphology(.open, shape: .disc, radius: 1)), RenderTarget(size: mask.extent))
        #expect(opened.samples.allSatisfy { $0 == 0 })
    }

    @Test func holesAreIgnoredAndAllHoleWindowsStayHoles() throws {
        var samples = [Float](repeating: .nan, count: 7 * 1)
        samples[1] = 2
        let node = try EngineFixtures.source(Raster(width: 7, height: 1, channels: 1, samples: samples), hasHoles: true)
            .applying(Morphology(.dilate, shape: .square, radius: 1))
        let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
        #expect(out[0] == 2 && out[1] == 2 && out[2] == 2)
        #expect(out[3].isNaN && out[6].isNaN)
    }

    @Test func tilesAndThreadsAgree() throws {
        let node = try EngineFixtures.source(EngineFixtures.noise(width: 40, height: 30, channels: 1))
            .applying(Morphology(.close, shape: .disc, radius: 4))
        let whole = try Evaluator(context: RenderContext(threads: 1)).render(node, RenderTarget(size: node.extent))
        let rect = PixelRect(x: 5, y: 22, width: 30, height: 8)
        let part = try Evaluator(context: RenderContext(threads: 4)).render(node, RenderTarget(size: node.extent, region: rect))
        #expect(part.samples == whole.cropped(to: rect).samples)
    }
}
