import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// The bundled notebooks' defaults on real phone photos: the depth threshold's cut found from the photo keeps
/// the face, and the person effects work on photos that carry no portrait matte.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct RealPhotoDefaultsTests {
    typealias S = EffectTestSupport

    static func notebook(_ name: String) throws -> Notebook {
        try #require(try S.bundledNotebooks().first { $0.name == name })
    }

    /// Σ(a·b) / Σa over two planes rendered at the same size.
    static func share(_ a: PixelBuffer, insideOf b: PixelBuffer) -> Double {
        var both = 0.0, all = 0.0
        for (x, y) in zip(a.samples, b.samples) where !x.isNaN && !y.isNaN {
            both += Double(x * y)
            all += Double(x)
        }
        return all > 0 ? both / all : 0
    }

    /// On the TrueDepth selfies, the depth-threshold notebook's closed mask, left at its defaults, holds the
    /// skin (at least 95 % of the skin matte, where the file has one) and little else (at most 15 % of the mask
    /// outside the portrait matte), and the slider's reported value is the share of the depth map it keeps.
    @Test(arguments: ["fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"])
    func depthThresholdDefaultsKeepTheFace(file: String) throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let notebook = try Self.notebook("depth-threshold")
        #expect(notebook.cell("mask")?.params?["percentile"] == nil, "the notebook leaves the cut to the photo")
        let width = 480
        let mask = try S.floats(photo, notebook, "closed", width: width)
        let matte = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let outside = 1 - Self.share(mask, insideOf: matte)
        #expect(outside <= 0.15, "\(file): \(outside * 100) % of the mask lies outside the portrait matte")
        #expect(Self.share(matte, insideOf: mask) >= 0.95, "\(file): the mask misses the subject")
        if photo.matte(.skin) != nil {
            let skin = try S.floats(photo, notebook, "photo.skin", width: width)
            let kept = Self.share(skin, insideOf: mask)
            #expect(kept >= 0.95, "\(file): only \(kept * 100) % of the skin is inside the mask")
        }
        let rendered = try NotebookRenderer(photo: photo).render(notebook: notebook, cell: "mask", request: CellRenderRequest(width: 64))
        let chosen = try #require(rendered.chosen["percentile"]?.number)
        let disparity = try #require(photo.depth).map.samples.filter { !$0.isNaN }
        let histogram = try NotebookRenderer(photo: photo).histogram(notebook: notebook, reference: "mask", bins: 8)
        let cut = try #require(histogram.marker)
        let keptShare = Double(disparity.filter { Double($0) >= cut }.count) / Double(disparity.count) * 100
        #expect(abs(chosen - keptShare) <= 0.5, "the slider shows the share the cut keeps")
    }

    /// The blend mask left untapped keeps the whole person in front, not only the face: on the selfies, at
    /// least 90 % of the portrait matte's solid part has mask ≥ 0.9 (it was 64 % and 24 % with the face's
    /// disparity as the threshold), and what the matte calls background stays behind (mean mask ≤ 0.1).
    @Test(arguments: ["fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"])
    func blendMaskKeepsTheWholePersonInFront(file: String) throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let notebook = try Self.notebook("blend-mask")
        #expect(notebook.cell("mask")?.params?["point"] == nil, "the notebook leaves the tap to the photo")
        let width = 400
        let mask = try S.floats(photo, notebook, "mask", width: width)
        let matte = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let solid = zip(matte.samples, mask.samples).filter { $0.0 > 0.9 }.map(\.1)
        let background = zip(matte.samples, mask.samples).filter { $0.0 < 0.1 }.map(\.1)
        let kept = Double(solid.filter { $0 >= 0.9 }.count) / Double(max(1, solid.count))
        #expect(kept >= 0.9, "\(file): \(kept * 100) % of the matte is fully in front")
        let behind = background.reduce(0.0) { $0 + Double($1) } / Double(max(1, background.count))
        #expect(behind <= 0.1, "\(file): the background's mean mask is \(behind)")
    }

    /// Darken by disparity keeps the subject lit even when something nearer is in the frame (the pug's bed
    /// corner, the nearest disparity): the subject (the depth threshold's default mask) keeps most of its light,
    /// the rest goes dark.
    @Test func darkenKeepsTheSubjectLit() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let width = 320
        let subject = try S.floats(photo, try Self.notebook("depth-threshold"), "resized", width: width)
        let darken = try Self.notebook("darken")
        let original = try S.floats(photo, darken, "photo", width: width)
        let result = try S.floats(photo, darken, "result", width: width)
        var inside = (kept: 0.0, all: 0.0), outside = (kept: 0.0, all: 0.0)
        for i in 0..<subject.samples.count {
            let m = Double(subject.samples[i])
            let before = (0..<3).reduce(0.0) { $0 + Double(original.samples[i * 3 + $1]) }
            let after = (0..<3).reduce(0.0) { $0 + Double(result.samples[i * 3 + $1]) }
            inside.kept += m * after; inside.all += m * before
            outside.kept += (1 - m) * after; outside.all += (1 - m) * before
        }
        #expect(inside.kept / inside.all >= 0.6, "the subject keeps \(inside.kept / inside.all * 100) % of its light")
        #expect(outside.kept / outside.all <= 0.25, "the background keeps \(outside.kept / outside.all * 100) % of its light")
    }

    /// Big Head, Marching and depth of field on the pug (rear camera, no portrait matte): every cell renders,
    /// through a subject mask from depth, and the render says so.
    @Test func personEffectsWithoutAPortraitMatte() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        #expect(photo.matte(.portraitEffectsMatte) == nil)
        let renderer = NotebookRenderer(photo: photo)
        for name in ["big-head", "marching", "depth-of-field", "backdrop", "depth-threshold", "darken", "blend-mask", "dolly-zoom"] {
            let notebook = try Self.notebook(name)
            let checked = try NotebookValidator().check(notebook)
            for cell in notebook.cells where cell.kind == .step || cell.kind == .view {
                let rendered = try renderer.render(notebook: notebook, cell: cell.id, request: CellRenderRequest(width: 96))
                #expect(rendered.image.width == 96, "\(name)/\(cell.id)")
                let usesMatte = RealPhotoNotebookTests.planes(cell.id, in: checked).contains("photo.portraitEffectsMatte")
                #expect(rendered.notes.contains(SubjectPlane.note) == usesMatte, "\(name)/\(cell.id): \(rendered.notes)")
            }
        }
        // The stand-in is the pug, not the wall: the nearer side of the frame's bottom half, little of its top.
        let subject = try S.floats(photo, try Self.notebook("big-head"), "matte", width: 128)
        let rows = subject.height
        func mean(_ range: Range<Int>) -> Double {
            var sum = 0.0
            for y in range { for x in 0..<subject.width { sum += Double(subject.samples[y * subject.width + x]) } }
            return sum / Double(range.count * subject.width)
        }
        #expect(mean(0..<rows / 3) < 0.05, "the wall above the pug is background")
        #expect(mean(rows * 2 / 3..<rows) > 0.4, "the pug and the cushion below are the subject")
    }

    /// Big Head on a portrait the frame cuts off below (the JPEG selfie, whose file names its face) grows the
    /// subject about the face: the face's centre stays inside the scaled matte and the top of the head rises by
    /// (scale − 1) × its distance from the face's centre, not by its distance from the frame's bottom.
    @Test func bigHeadGrowsAPortraitAboutItsFace() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let face = try #require(photo.faces.first)
        let scale = 1.1
        let notebook = S.notebook([S.step("scaled", "scaledMatte", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                                          ["scale": .number(scale)])])
        let width = 240
        let before = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let after = try S.floats(photo, notebook, "scaled", width: width)
        func top(_ plane: PixelBuffer) -> Double? {
            (0..<plane.height).first { y in (0..<plane.width).contains { plane.samples[y * plane.width + $0] > 0.5 } }
                .map { Double($0) / Double(plane.height) }
        }
        let topBefore = try #require(top(before)), topAfter = try #require(top(after))
        let faceY = face.centerY / Double(photo.height)
        #expect(topBefore < 0.98 && topBefore < faceY)
        let aboutFace = faceY - scale * (faceY - topBefore), aboutBase = 1 - scale * (1 - topBefore)
        #expect(abs(topAfter - aboutFace) <= 0.01, "top \(topAfter): about the face \(aboutFace), about the base \(aboutBase)")
        let fx = Int(face.centerX / Double(photo.width) * Double(width)), fy = Int(faceY * Double(after.height))
        #expect(after.samples[fy * after.width + fx] > 0.9)
    }

    /// Made smaller, the same frame-cut portrait scales about its base: its body still runs out of the frame's
    /// bottom edge (the bottom row keeps at least half the subject's width there), where scaling about the face
    /// left the bottom fifth of the frame without any subject, a cut-out torso floating above the plate.
    @Test func aSmallerPortraitStaysOnTheFramesBottomEdge() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let notebook = S.notebook([S.step("scaled", "scaledMatte", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                                          ["scale": .number(0.75)])])
        let width = 240
        let before = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let after = try S.floats(photo, notebook, "scaled", width: width)
        func covered(_ plane: PixelBuffer, row: Int) -> Int { (0..<plane.width).filter { plane.samples[row * plane.width + $0] > 0.5 }.count }
        let last = after.height - 1
        #expect(covered(before, row: last) > width / 2, "the portrait is cut by the frame's bottom edge")
        #expect(covered(after, row: last) >= covered(before, row: last) / 2, "the smaller subject still reaches the bottom edge")
    }

    /// Made smaller, a selfie the frame cuts off at the bottom and both sides keeps its body there: the bottom
    /// corners hold the sweater, not a fill, and the head still shrinks by the scale. Scaled as a whole, the body
    /// was cut straight at both sides, ~12 % of the width of flat fill in each bottom corner (issue 38 item 4).
    @Test func aSmallerSelfieKeepsItsBodyInTheBottomCorners() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        let scale = 0.75
        let notebook = S.notebook([
            S.step("scaled", "scaledMatte", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["scale": .number(scale)]),
            S.step("smaller", "scaleSubject", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["scale": .number(scale)]),
        ])
        let width = 360
        let before = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let after = try S.floats(photo, notebook, "scaled", width: width)
        let h = after.height
        func covered(_ plane: PixelBuffer, rows: Range<Int>, columns: Range<Int>) -> Double {
            var n = 0
            for y in rows { for x in columns where plane.samples[y * plane.width + x] > 0.5 { n += 1 } }
            return Double(n) / Double(rows.count * columns.count)
        }
        let bottom = (h * 85 / 100)..<h, corner = width * 12 / 100
        for (name, columns) in [("left", 0..<corner), ("right", (width - corner)..<width)] {
            let was = covered(before, rows: bottom, columns: columns), now = covered(after, rows: bottom, columns: columns)
            print("smaller selfie, bottom \(name) corner covered by the subject: \(was) before, \(now) after")
            #expect(was > 0.5, "the selfie's body fills its bottom \(name) corner")
            #expect(now >= was - 0.05, "the smaller body still fills the bottom \(name) corner")
        }
        // The head shrinks: its top moves down toward the face by about (1 − scale) of its height above it.
        func top(_ plane: PixelBuffer) -> Int? {
            (0..<plane.height).first { y in (0..<plane.width).contains { plane.samples[y * plane.width + $0] > 0.5 } }
        }
        let topBefore = try #require(top(before)), topAfter = try #require(top(after))
        print("smaller selfie, top of the head: row \(topBefore) of \(h) before, \(topAfter) after")
        #expect(Double(topAfter - topBefore) >= 0.1 * Double(h), "the head shrank")
        // And the picture's bottom corners are the photo's own (the body, unmoved), not a smooth fill.
        let image = try S.floats(photo, notebook, "smaller", width: width)
        let original = try S.floats(photo, notebook, "photo", width: width)
        var difference = 0.0, count = 0
        for y in bottom { for x in Array(0..<corner) + Array((width - corner)..<width) {
            for c in 0..<3 { difference += abs(Double(image.samples[(y * width + x) * 3 + c] - original.samples[(y * width + x) * 3 + c])); count += 1 }
        } }
        print("smaller selfie, bottom corners: mean difference from the photo \(difference / Double(count) * 255) levels")
        #expect(difference / Double(count) * 255 < 4)
    }

    /// An optional input bound to a plane the photo lacks is dropped, not a failure: depth of field's matte on
    /// a photo with depth from a separate map and no matte falls back; without any depth the cell says what
    /// to do.
    @Test func aMissingOptionalPlaneIsDroppedAndNoDepthSaysWhatToDo() throws {
        let flowers = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__flowers-image.jpg"))
        #expect(flowers.depth == nil)
        let notebook = try Self.notebook("depth-of-field")
        do {
            _ = try NotebookRenderer(photo: flowers).render(notebook: notebook, cell: "portrait", request: CellRenderRequest(width: 64))
            Issue.record("rendered depth of field without depth")
        } catch let error as EffectError {
            #expect(error.description.contains("depth map"), "\(error)")
        }
        let withSkin = S.notebook([S.step("dof", "depthOfField", ["image": "photo", "disparity": "photo.disparity", "matte": "photo.skin"],
                                          ["aperture": .number(2.8)])])
        let pug = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let rendered = try NotebookRenderer(photo: pug).render(notebook: withSkin, cell: "dof", request: CellRenderRequest(width: 64))
        #expect(rendered.image.width == 64)
        #expect(rendered.notes.contains { $0.contains("photo.skin") })
    }

    /// The HEIC selfie's calibration describes a perfect lens (every value zero): correcting with it leaves the
    /// photo unchanged and says so; the pug's describes a real one, which moves pixels, without the note.
    @Test func aLensDescribedAsPerfectIsReportedNotSilentlyIgnored() throws {
        let selfie = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        let model = try #require(selfie.calibration.flatMap { LensDistortionModel($0) })
        #expect(model.largestMagnification == 0)
        let calibrated = S.notebook([S.step("lens", "lensCorrection", ["image": "photo"], ["source": .choice("calibration")])])
        let renderer = NotebookRenderer(photo: selfie)
        let unchanged = try renderer.render(notebook: calibrated, cell: "lens", request: CellRenderRequest(width: 96))
        let photo = try renderer.render(notebook: calibrated, cell: "photo", request: CellRenderRequest(width: 96))
        #expect(unchanged.image.samples == photo.image.samples)
        #expect(unchanged.notes == [LensCorrectionEffect.perfectLensNote])
        let auto = S.notebook([S.step("lens", "lensCorrection", ["image": "photo"], [:])])
        let manual = try renderer.render(notebook: auto, cell: "lens", request: CellRenderRequest(width: 96))
        #expect(manual.image.samples == photo.image.samples, "on auto too: nothing to correct")
        #expect(manual.notes == [LensCorrectionEffect.perfectLensNote])

        let pug = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let real = try #require(pug.calibration.flatMap { LensDistortionModel($0) })
        #expect(real.largestMagnification > 0.005)
        let corrected = try NotebookRenderer(photo: pug).render(notebook: calibrated, cell: "lens", request: CellRenderRequest(width: 96))
        #expect(corrected.notes.isEmpty)
    }
}

