import DepthbookCodecs
import DepthbookDocument
@testable import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// What the subject uncovers when the camera pulls back (the dolly-zoom notebook's `out`), on the TrueDepth-style
/// selfie: the background behind the head's edge (`BackgroundPlate`), not the head's own colour smeared outward.
/// The gaps are found by rendering the same view with them (and the view past the frame) left black; their colour is compared with the
/// background's (Apple's matte below 0.05) beside the push-pull fill they had before.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct DollyUncoveredTests {
    typealias S = EffectTestSupport

    @Test func theGapsShowTheBackgroundNotTheSubjectsColour() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        var notebook = try #require(try S.bundledNotebooks().first { $0.name == "dolly-zoom" })
        let out = try #require(notebook.cells.first { $0.id == "out" })
        // The frame left black in both, so the two line up (`fill` crops the view to what the photo covers).
        var framed = out
        framed.id = "out-framed"
        framed.params = (framed.params ?? [:]).merging(["frame": .choice("black")]) { $1 }
        var black = out
        black.id = "out-black"
        black.params = (black.params ?? [:]).merging(["uncovered": .choice("black"), "frame": .choice("black")]) { $1 }
        notebook.cells += [framed, black]
        let width = 480
        let filled = try S.floats(photo, notebook, "out-framed", width: width)
        let gaps = try S.floats(photo, notebook, "out-black", width: width)
        let matte = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let image = try S.floats(photo, notebook, "photo", width: width)

        // Beside it: the same camera without the plate (push-pull, then texture from around each gap).
        let evaluator = Evaluator()
        let context = EffectContext(photo: photo, photoID: "test", evaluator: evaluator, statistics: StatisticsCache(), uploads: nil)
        var builder = RecipeBuilder(notebook: try NotebookValidator().check(notebook), context: context)
        let zoom = try builder.build("out-framed").node
        #expect(zoom.inputs.count == 4, "the zoom reads the background plate")
        let pushPulled = try evaluator.render(try Node(zoom.filter, Array(zoom.inputs.prefix(2))),
                                              RenderTarget(size: PixelSize(width: filled.width, height: filled.height)))

        // Gap pixels: black in the black render, inside the frame (the photo's own view past its edges is not a gap),
        // away from the frame's border.
        let w = filled.width, h = filled.height
        let pastEdges = DollyFill.borderConnected(gaps.samples.indices.filter { $0 % 3 == 0 }.map { gaps.samples[$0] >= 0.01 || gaps.samples[$0 + 1] >= 0.01 || gaps.samples[$0 + 2] >= 0.01 },
                                                  size: PixelSize(width: w, height: h))
        var gap: [Int] = []
        for i in 0..<(w * h) where !pastEdges[i] && (0..<3).allSatisfy({ gaps.samples[i * 3 + $0] < 0.01 }) { gap.append(i) }
        #expect(gap.count > w * h / 200, "pulling back uncovers something (\(gap.count) pixels)")
        // Red minus blue: skin is warm, the wall is neutral.
        func warmth(_ b: PixelBuffer, _ pixels: [Int]) -> Double {
            pixels.map { Double(b.samples[$0 * 3] - b.samples[$0 * 3 + 2]) }.reduce(0, +) / Double(max(1, pixels.count))
        }
        let background = (0..<(w * h)).filter { matte.samples[$0] < 0.05 }
        let wall = warmth(image, background), now = warmth(filled, gap), before = warmth(pushPulled, gap)
        print("dolly-uncovered selfie gaps=\(gap.count) warmth: background=\(String(format: "%.4f", wall)) plate=\(String(format: "%.4f", now)) without-plate=\(String(format: "%.4f", before))")
        // (The zoom without the plate now takes its gaps' texture from what lies near each gap, and came closer
        // than the plate when measured: 0.0705 against 0.0827, the wall 0.0660; with one source for all gaps, 0.0859.)
        #expect(abs(now - wall) < 0.02, "the gaps are \(now - wall) warmer than the background")
        #expect(abs(before - wall) < 0.02, "without the plate, the gaps are \(before - wall) warmer than the background")
    }
}
