import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// The makeup notebook's one-step cell on the shared selfie with a skin matte: at its defaults the skin is
/// brighter and more even, and keeps its colour (not greyer, the same hue).
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct MakeupOnAFaceTests {
    typealias S = EffectTestSupport

    /// Mean luma, its standard deviation, mean saturation ((max − min) / max) and mean hue (degrees, as a
    /// circular mean) over the pixels where `mask` ≥ 0.9.
    static func skinStatistics(_ image: PixelBuffer, _ mask: PixelBuffer) -> (luma: Double, spread: Double, saturation: Double, hue: Double) {
        var lumas = [Double](), saturation = 0.0, hx = 0.0, hy = 0.0
        for i in 0..<mask.samples.count where mask.samples[i] >= 0.9 {
            let r = Double(image.samples[i * 3]), g = Double(image.samples[i * 3 + 1]), b = Double(image.samples[i * 3 + 2])
            lumas.append(0.299 * r + 0.587 * g + 0.114 * b)
            let hi = max(r, g, b), lo = min(r, g, b)
            saturation += hi > 0 ? (hi - lo) / hi : 0
            // Hue on the colour wheel of the opponent axes (r − (g + b)/2, (g − b)·√3/2).
            let angle = atan2((g - b) * 3.0.squareRoot() / 2, r - (g + b) / 2)
            hx += cos(angle); hy += sin(angle)
        }
        let n = Double(max(1, lumas.count)), mean = lumas.reduce(0, +) / n
        let spread = (lumas.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot()
        return (mean, spread, saturation / n, atan2(hy, hx) * 180 / .pi)
    }

    @Test func theDefaultsBrightenAndEvenSkinKeepingItsColour() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "makeup" })
        let width = 579
        let skin = try S.floats(photo, notebook, "skinScaled", width: width)
        let before = Self.skinStatistics(try S.floats(photo, notebook, "photo", width: width), skin)
        let after = Self.skinStatistics(try S.floats(photo, notebook, "recipe", width: width), skin)
        print("makeup before luma=\(before.luma) spread=\(before.spread) saturation=\(before.saturation) hue=\(before.hue)")
        print("makeup after  luma=\(after.luma) spread=\(after.spread) saturation=\(after.saturation) hue=\(after.hue)")
        #expect(after.luma >= before.luma + 0.03, "brighter")
        #expect(after.spread < before.spread, "more even")
        #expect(after.saturation >= 0.95 * before.saturation, "not greyer: saturation \(before.saturation) → \(after.saturation)")
        #expect(abs(after.hue - before.hue) <= 3, "the same hue: \(before.hue)° → \(after.hue)°")
    }
}
