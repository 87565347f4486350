import DepthbookEngine
import DepthbookTestSupport
import Testing

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
