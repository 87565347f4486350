import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// Lens correction on real photos (issue 38): `back` undoes `corrected`, no black border by default, and a
/// photo with nothing to correct is left exactly as it is, with a note saying why.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct LensCorrectionRealPhotoTests {
    typealias S = EffectTestSupport
    static let width = 1008

    static func pug() throws -> Photo { try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic")) }

    /// Correct at `strength`, then distort back, both with the defaults otherwise.
    static func roundTrip(_ strength: Double, border: String? = nil) -> Notebook {
        var params: [String: ParameterValue] = ["strength": .number(strength)]
        if let border { params["border"] = .choice(border) }
        var back = params
        back["direction"] = .choice("distort")
        return S.notebook([S.step("corrected", "lensCorrection", ["image": "photo"], params),
                           S.step("back", "lensCorrection", ["image": "corrected"], back)])
    }

    /// Mean |a − b| over the inner `share` of the frame (all channels), in 0…1 units.
    static func innerMeanDifference(_ a: PixelBuffer, _ b: PixelBuffer, share: Double = 0.9) -> Double {
        let marginX = Int(Double(a.width) * (1 - share) / 2), marginY = Int(Double(a.height) * (1 - share) / 2)
        var sum = 0.0, count = 0
        for y in marginY..<(a.height - marginY) {
            for x in marginX..<(a.width - marginX) {
                for c in 0..<a.channels {
                    let i = (y * a.width + x) * a.channels + c
                    sum += Double(abs(a.samples[i] - b.samples[i]))
                    count += 1
                }
            }
        }
        return sum / Double(count)
    }

    /// Mean |a − b| over the band within 5 % of the frame's edges (all channels), in 0…1 units.
    static func edgeMeanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let marginX = max(1, a.width / 20), marginY = max(1, a.height / 20)
        var sum = 0.0, count = 0
        for y in 0..<a.height {
            for x in 0..<a.width where y < marginY || y >= a.height - marginY || x < marginX || x >= a.width - marginX {
                for c in 0..<a.channels {
                    let i = (y * a.width + x) * a.channels + c
                    sum += Double(abs(a.samples[i] - b.samples[i]))
                    count += 1
                }
            }
        }
        return sum / Double(count)
    }

    /// Rows and columns at the frame's edge that are entirely black.
    static func blackEdgeLines(_ b: PixelBuffer) -> Int {
        func black(_ x: Int, _ y: Int) -> Bool { (0..<b.channels).allSatisfy { b.samples[(y * b.width + x) * b.channels + $0] < 0.5 / 255 } }
        let rows = [0, b.height - 1].filter { y in (0..<b.width).allSatisfy { black($0, y) } }.count
        let columns = [0, b.width - 1].filter { x in (0..<b.height).allSatisfy { black(x, $0) } }.count
        return rows + columns
    }

    @Test(arguments: [1.0, 5.0])
    func distortingBackUndoesTheCorrection(strength: Double) throws {
        let pug = try Self.pug()
        let notebook = Self.roundTrip(strength)
        let photo = try S.floats(pug, notebook, "photo", width: Self.width)
        let corrected = try S.floats(pug, notebook, "corrected", width: Self.width)
        let back = try S.floats(pug, notebook, "back", width: Self.width)
        let moved = Self.innerMeanDifference(corrected, photo), returned = Self.innerMeanDifference(back, photo)
        // The edges too: `back` reads beyond the frame `crop` kept, so in two steps they came back as the
        // corrected frame's last pixels stretched (LensWarpChain follows both maps to the photo instead).
        let edges = Self.edgeMeanDifference(back, photo)
        print("lens round trip on the pug at \(Self.width) px, strength \(strength): corrected differs by \(moved * 255) levels, back by \(returned * 255) (inner 90 %), \(edges * 255) (outer 5 % band)")
        #expect(moved * 255 > 2, "the correction moves pixels")
        #expect(returned * 255 <= 2, "back returns the photo within 2/255 on average")
        #expect(edges * 255 <= 2, "back returns the photo's edges within 2/255 on average")
    }

    @Test(arguments: [1.0, 5.0, 20.0])
    func noBlackBorderByDefault(strength: Double) throws {
        let pug = try Self.pug()
        let notebook = Self.roundTrip(strength)
        for cell in ["corrected", "back"] {
            let out = try S.floats(pug, notebook, cell, width: 320)
            #expect(Self.blackEdgeLines(out) == 0, "\(cell) at strength \(strength) has an all-black edge")
        }
        // The talk's look stays one choice away.
        let black = try S.floats(pug, Self.roundTrip(strength, border: "black"), "back", width: 320)
        #expect(black.samples.contains(0), "with a black border, the corners the correction lost are black")
    }

    /// A photo without lens calibration (the generated sample) and one whose calibration describes a perfect
    /// lens (the TrueDepth selfie) come back exactly, with the note saying why.
    @Test func nothingToCorrectLeavesThePhotoExactly() throws {
        let selfie = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        let sample = try S.sample("portrait")
        #expect(sample.calibration.flatMap { LensDistortionModel($0) } == nil)
        for (photo, note) in [(sample, LensCorrectionEffect.noCalibrationNote), (selfie, LensCorrectionEffect.perfectLensNote)] {
            let notebook = S.notebook([S.step("lens", "lensCorrection", ["image": "photo"], ["strength": .number(5)])])
            let renderer = NotebookRenderer(photo: photo)
            let lens = try renderer.render(notebook: notebook, cell: "lens", request: CellRenderRequest(width: 96))
            let original = try renderer.render(notebook: notebook, cell: "photo", request: CellRenderRequest(width: 96))
            #expect(lens.image.samples == original.image.samples)
            #expect(lens.notes == [note])
        }
    }
}
