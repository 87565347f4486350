import DepthbookEngine
import DepthbookTestSupport
import Testing

struct GaussianBlurTests {
    @Test(arguments: [(37, 23, 1, 2.0), (37, 23, 3, 1.3), (5, 41, 1, 6.0), (1, 1, 3, 4.0), (64, 9, 1, 30.0)])
    func matchesScipy(width: Int, height: Int, channels: Int, sigma: Double) throws {
        let raster = EngineFixtures.noise(width: width, height: height, channels: channels, seed: 7)
        let node = try EngineFixtures.source(raster).applying(GaussianBlur(sigma: sigma))
        let ours = try Evaluator().render(node, RenderTarget(size: node.extent))
        let reference = try PythonReference("gaussian.py").run(
            [raster.samples], arguments: ["\(width)", "\(height)", "\(channels)", "\(sigma)"])
        #expect(EngineFixtures.maxDifference(ours.samples, reference) < 2e-5)
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
