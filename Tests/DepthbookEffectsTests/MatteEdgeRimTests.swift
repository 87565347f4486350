import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// No light rim at the matte's soft edge (issue 38, "decontaminate"): matte separation treats the subject with
/// more contrast and vibrance, and where Apple's matte is soft the photo there is part wall. Treated as it is, the
/// wall's light comes along: a 1–2 px line brighter than both the face inside it and the dark background outside.
/// Measured on the shared portraits at the matte's own width, with the notebook as shipped (the subject's own
/// colour first, blended through the matte fitted to the photo) and as the talk made it (the photo treated, blended
/// through the matte as it came).
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct MatteEdgeRimTests {
    typealias S = EffectTestSupport
    /// The TrueDepth portrait in front of a lit wall: its rim was the one a person saw (7.8 levels on average).
    static let brightWall = "fidmaa-portrait-analyser__heic_depth_data.heic"

    /// Rec.601 luma of pixel `i`, 0...255.
    static func luma(_ image: PixelBuffer, _ i: Int) -> Double {
        255 * Double(0.299 * image.samples[i * 3] + 0.587 * image.samples[i * 3 + 1] + 0.114 * image.samples[i * 3 + 2])
    }

    /// The rim: over the matte's soft edge (0.05 < α < 0.95), how far the result's luma rises above the brighter of
    /// its two sides, each the mean of the result where the matte is pure (≥ 0.95 inside, ≤ 0.05 outside) within a
    /// 9 × 9 window. A composite of the subject over the background lies between its sides; a rim rises above both.
    /// Mean rise (levels, 0 where it does not rise) and the share of edge pixels rising more than 8 levels.
    static func rim(_ result: PixelBuffer, matte: PixelBuffer) -> (mean: Double, share: Double) {
        let w = matte.width, h = matte.height, r = 4
        let l = (0..<(w * h)).map { luma(result, $0) }
        var total = 0.0, high = 0, count = 0
        for y in r..<(h - r) {
            for x in r..<(w - r) {
                let a = matte.samples[y * w + x]
                guard a > 0.05 && a < 0.95 else { continue }
                var inside = 0.0, nInside = 0, outside = 0.0, nOutside = 0
                for dy in -r...r {
                    for dx in -r...r {
                        let j = (y + dy) * w + x + dx, b = matte.samples[j]
                        if b >= 0.95 { inside += l[j]; nInside += 1 } else if b <= 0.05 { outside += l[j]; nOutside += 1 }
                    }
                }
                guard nInside > 0 && nOutside > 0 else { continue }
                let rise = max(0, l[y * w + x] - max(inside / Double(nInside), outside / Double(nOutside)))
                total += rise
                if rise > 8 { high += 1 }
                count += 1
            }
        }
        return count > 0 ? (total / Double(count), Double(high) / Double(count)) : (0, 0)
    }

    /// The talk's recipe: the notebook with its treatment reading the photo and its blend the matte as it came.
    static func talks(_ notebook: Notebook) throws -> Notebook {
        var changed = notebook
        let treatment = try #require(changed.cells.firstIndex { $0.id == "desaturated" })
        changed.cells[treatment].inputs?["image"] = "photo"
        let blend = try #require(changed.cells.firstIndex { $0.id == "result" })
        changed.cells[blend].inputs?["mask"] = "photo.portraitEffectsMatte"
        return changed
    }

    @Test(arguments: MatteAgreementTests.files)
    func matteSeparationHasNoLightRim(file: String) throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let notebook = try MatteAgreementTests.notebook("matte-separation")
        let width = MatteAgreementTests.width
        let matte = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let after = Self.rim(try S.floats(photo, notebook, "result", width: width), matte: matte)
        let before = Self.rim(try S.floats(photo, try Self.talks(notebook), "result", width: width), matte: matte)
        let recipe = Self.rim(try S.floats(photo, notebook, "recipe", width: width), matte: matte)
        print("rim matte-separation \(file): mean rise above both sides before=\(before.mean) after=\(after.mean) recipe=\(recipe.mean) levels; share > 8 levels before=\(before.share) after=\(after.share)")
        #expect(abs(recipe.mean - after.mean) < 0.05, "the named recipe decontaminates as the notebook does")
        if file == Self.brightWall {
            #expect(after.mean <= 1, "\(file): the subject's edge still rises \(after.mean) levels above both sides")
            #expect(after.share <= 0.02)
            #expect(after.mean < before.mean / 4, "taking the wall out of the edge is what removes the rim")
        } else {
            // A dark room: the measure rises over hair wisps far from any pure background, where the step
            // leaves the photo as it is; it must not add a rim.
            #expect(after.mean <= before.mean + 0.25)
        }
    }
}
