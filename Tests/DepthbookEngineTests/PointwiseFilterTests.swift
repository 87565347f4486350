import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct PointwiseFilterTests {
    @Test func thresholdIsInclusiveAndHolesAreZero() throws {
        let raster = Raster<Float>(width: 5, height: 1, channels: 1, samples: [0.1, 0.5, 0.49999, .nan, 3])
        let node = try EngineFixtures.source(raster, hasHoles: true).applying(Threshold(0.5))
        #expect(try Evaluator().render(node, RenderTarget(size: node.extent)).samples == [0, 1, 0, 0, 1])
    }

    @Test func blendWithMaskMixesPerChannel() throws {
        let fg = try EngineFixtures.source(Raster(width: 2, height: 1, channels: 3, samples: [1, 0.5, 0, 1, 1, 1]), id: "fg")
        let bg = try EngineFixtures.source(Raster(width: 2, height: 1, channels: 3, samples: [0, 0.5, 1, 0, 0, 0]), id: "bg")
        let mask = try EngineFixtures.source(Raster(width: 2, height: 1, channels: 1, samples: [0.25, 1]), id: "m")
        let node = try Node(BlendWithMask(), [fg, bg, mask])
        let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
        #expect(out == [0.25, 0.5, 0.75, 1, 1, 1])
    }

    @Test func blendRejectsMixedKinds() throws {
        let image = try EngineFixtures.source(EngineFixtures.noise(width: 2, height: 2, channels: 3))
        let plane = try EngineFixtures.source(EngineFixtures.noise(width: 2, height: 2, channels: 1))
        #expect(throws: RenderError.self) { try Node(BlendWithMask(), [image, plane, plane]) }
    }

    @Test func colorMatrixSwapsAndClamps() throws {
        let src = try EngineFixtures.source(Raster(width: 1, height: 1, channels: 3, samples: [0.2, 0.4, 0.9]))
        // R ← b, G ← 2g + 0.5 (clamped), B ← r − 0.5 (clamped).
        let matrix: [Double] = [0, 0, 1, 0, 0, 2, 0, 0.5, 1, 0, 0, -0.5]
        let clamped = try src.applying(ColorMatrix(matrix: matrix))
        let raw = try src.applying(ColorMatrix(matrix: matrix, clamp: false))
        let a = try Evaluator().render(clamped, RenderTarget(size: clamped.extent)).samples
        let b = try Evaluator().render(raw, RenderTarget(size: raw.extent)).samples
        #expect(a == [0.9, 1, 0])
        #expect(abs(b[1] - 1.3) < 1e-6 && abs(b[2] + 0.3) < 1e-6)
        #expect(throws: RenderError.self) { try ColorMatrix(matrix: [1, 2, 3]) }
    }
}
