import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// The effects' own per-pixel filters against formulas written out independently here.
@Suite(.timeLimit(.minutes(30)))
struct PointwiseStepTests {
    /// A 1-row image whose pixels are the given RGB triples.
    private func run(_ filter: any Filter, _ rgb: [Float], channels: Int = 3) throws -> [Float] {
        let raster = Raster(width: rgb.count / channels, height: 1, channels: channels, samples: rgb)
        let node = try Node(filter, [try EngineFixtures.source(raster)])
        return try Evaluator().render(node, RenderTarget(size: PixelSize(width: raster.width, height: 1))).samples
    }

    private static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    private static func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// The effects' exposure is the engine's, table-driven in 0...1: still the exact linear-light curve.
    @Test func exposureWorksInLinearLight() throws {
        let values: [Float] = (0..<64).map { Float($0) / 63 } + [0.0001, 0.5, 0.99999]
        let padded = values + Array(repeating: 0, count: (3 - values.count % 3) % 3)
        for ev in [-2.0, -0.5, 1.0, 1.7] {
            let raster = Raster(width: padded.count / 3, height: 1, channels: 3, samples: padded)
            let node = try Primitives.exposure(try EngineFixtures.source(raster), ev: ev)
            let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
            for (v, o) in zip(padded, out) {
                let exact = Self.encode(Self.decode(Double(v)) * pow(2, ev))
                #expect(abs(Double(o) - exact) < 1e-5, "ev \(ev) at \(v): \(o) vs \(exact)")
            }
        }
    }

    /// Noir in the effects is the engine's CIPhotoEffectNoir approximation: Rec.601 luma, contrast 1.5 about 0.5, clipped.
    @Test func noirIsLumaWithContrast() throws {
        let rgb: [Float] = [0.2, 0.4, 0.6, 0.9, 0.1, 0.3, 0.5, 0.5, 0.5, 0, 0, 0]
        let raster = Raster(width: 4, height: 1, channels: 3, samples: rgb)
        let node = try Primitives.noir(try EngineFixtures.source(raster))
        let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
        for p in 0..<4 {
            let g = 0.299 * Double(rgb[p * 3]) + 0.587 * Double(rgb[p * 3 + 1]) + 0.114 * Double(rgb[p * 3 + 2])
            let expected = min(1, max(0, (g - 0.5) * 1.5 + 0.5))
            for c in 0..<3 { #expect(abs(Double(out[p * 3 + c]) - expected) < 1e-5) }
        }
    }

    /// Colour controls are the benchmark's P2 matrix: saturation about Rec.601 luma, then contrast about 0.5.
    @Test func colorControlsMatrixMatchesTheBenchmark() throws {
        let source = try EngineFixtures.source(Raster(width: 2, height: 1, channels: 3, samples: [0.2, 0.5, 0.7, 0.6, 0.3, 0.1]))
        let node = try Primitives.colorControls(source, saturation: 1.2, contrast: 1.1, brightness: 0)
        let out = try Evaluator().render(node, RenderTarget(size: PixelSize(width: 2, height: 1))).samples
        let luma = [0.299, 0.587, 0.114]
        for p in 0..<2 {
            let rgb = (0..<3).map { Double([0.2, 0.5, 0.7, 0.6, 0.3, 0.1][p * 3 + $0]) }
            let y = zip(luma, rgb).reduce(0) { $0 + $1.0 * $1.1 }
            for c in 0..<3 {
                let expected = min(1, max(0, 1.1 * (1.2 * rgb[c] + (1 - 1.2) * y) + 0.5 * (1 - 1.1)))
                #expect(abs(Double(out[p * 3 + c]) - expected) < 1e-5)
            }
        }
    }

    @Test func thresholdBelowKeepsNearDepthAndDropsHoles() throws {
        let out = try run(ThresholdBelow(cut: 1.5), [0.5, 1.5, 1.6, .nan], channels: 1)
        #expect(out == [1, 1, 0, 0])
    }
}
