import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct DiscBlurTests {
    @Test(arguments: [(45, 31, 3, 20.0), (37, 29, 1, 4.5), (9, 7, 1, 12.0), (1, 1, 3, 3.0), (60, 2, 1, 1.0)])
    func matchesScipy(width: Int, height: Int, channels: Int, radius: Double) throws {
        let raster = EngineFixtures.noise(width: width, height: height, channels: channels, seed: 11)
        let node = try EngineFixtures.source(raster).applying(DiscBlur(radius: radius))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
        let reference = try PythonReference("disc.py").run(
            [raster.samples], arguments: ["\(width)", "\(height)", "\(channels)", "\(radius)"])
        #expect(EngineFixtures.maxDifference(ours.samples, reference) < 2e-5)
    }

    /// Hand-derived: a single bright pixel spreads 1/13 over the r = 2 disc (13 pixels), nothing outside.
    @Test func impulseGivesTheDisc() throws {
        var samples = [Float](repeating: 0, count: 7 * 7)
        samples[3 * 7 + 3] = 13
        let node = try EngineFixtures.source(Raster(width: 7, height: 7, channels: 1, samples: samples)).applying(DiscBlur(radius: 2))
        let out = try Evaluator().render(node, RenderTarget(size: node.extent))
        for y in 0..<7 {
            for x in 0..<7 {
                let inside = (x - 3) * (x - 3) + (y - 3) * (y - 3) <= 4
                #expect(abs(out.samples[y * 7 + x] - (inside ? 1 : 0)) < 1e-5)
            }
        }
    }

    @Test func regionsMatchTheWholeFrame() throws {
        let node = try EngineFixtures.source(EngineFixtures.noise(width: 50, height: 40, channels: 3)).applying(DiscBlur(radius: 7))
        let whole = try Evaluator().render(node, RenderTarget(size: node.extent))
        let rect = PixelRect(x: 31, y: 17, width: 13, height: 9)
        let part = try Evaluator(context: RenderContext(threads: 3)).render(node, RenderTarget(size: node.extent, region: rect))
        #expect(part.samples == whole.cropped(to: rect).samples)
    }
}
