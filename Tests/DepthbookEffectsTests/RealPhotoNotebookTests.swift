import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// Every bundled notebook on every real phone photo in `../shared/photos`: cells whose planes the photo
/// has render; the others are refused with a message naming a plane the photo lacks.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct RealPhotoNotebookTests {
    typealias S = EffectTestSupport

    /// The real photos with an image Depthbook reads (the broken ones in `bad/` are the codecs' business).
    static let photos: [(name: String, depth: String?)] = [
        ("pillow_heif__pug.heic", nil),
        ("fidmaa-portrait-analyser__heic_depth_data.heic", nil),
        ("fidmaa-portrait-analyser__jpeg_depth_data.jpg", nil),
        ("spite-lensblur-extractor__table.jpg", nil),
        ("exifr__with_deth_map.jpg", nil),
        ("depthy__flowers-image.jpg", "depthy__flowers-depth.jpg"),
    ]

    /// The photo planes a cell reads, following references up the notebook (independent of the renderer).
    static func planes(_ reference: String, in checked: CheckedNotebook) -> Set<String> {
        if reference == "photo" || reference == "photo.image" { return [] }
        if reference.hasPrefix("photo.") { return [reference == "photo.depth" ? "photo.disparity" : reference] }
        guard let cell = checked.notebook.cell(reference) else { return [] }
        return checked.references(of: cell).reduce(into: Set<String>()) { $0.formUnion(planes($1, in: checked)) }
    }

    /// Planes a cell may use on `photo`: its own, and a portrait matte wherever there is depth (a subject mask
    /// from depth stands in for it).
    static func available(_ photo: Photo) -> Set<String> {
        var all: Set<String> = photo.depth == nil ? [] : ["photo.disparity", "photo.portraitEffectsMatte"]
        for m in photo.mattes { all.insert("photo.\(m.kind.rawValue)") }
        return all
    }

    @Test(arguments: photos.map(\.name))
    func everyNotebookRendersOrNamesTheMissingPlane(file: String) throws {
        let depth = Self.photos.first { $0.name == file }?.depth
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path))
        let has = Self.available(photo)
        let renderer = NotebookRenderer(photo: photo)
        var rendered = 0, refused = 0
        for notebook in try S.bundledNotebooks() {
            let checked = try NotebookValidator().check(notebook)
            for cell in notebook.cells where cell.kind != .note {
                let needs = Self.planes(cell.id, in: checked)
                let missing = needs.subtracting(has)
                let request = CellRenderRequest(width: 64)
                if missing.isEmpty {
                    let out = try renderer.render(notebook: notebook, cell: cell.id, request: request)
                    #expect(out.image.width == 64, "\(notebook.name)/\(cell.id)")
                    rendered += 1
                } else {
                    do {
                        _ = try renderer.render(notebook: notebook, cell: cell.id, request: request)
                        Issue.record("\(notebook.name)/\(cell.id) rendered on \(file) without \(missing.sorted())")
                    } catch let error as EffectError {
                        guard case .missingPlane(let plane) = error else {
                            Issue.record("\(notebook.name)/\(cell.id): unexpected \(error)")
                            continue
                        }
                        #expect(missing.contains(plane == "photo.depth" ? "photo.disparity" : plane))
                        #expect(error.description.contains(plane))
                        refused += 1
                    }
                }
            }
        }
        #expect(rendered > 0)
        if has.isSuperset(of: ["photo.disparity", "photo.portraitEffectsMatte", "photo.skin", "photo.hair", "photo.teeth", "photo.glasses"]) {
            #expect(refused == 0)
        }
    }

    /// On a real portrait (the iPhone front camera's absolute depth), identity settings leave the photo as it was.
    @Test func identityOnARealPortrait() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let nb = S.notebook([
            S.step("big", "bigHead", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                   ["scale": .number(1), "contrast": .number(1), "blur": .number(0)]),
            S.step("march", "marching", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["count": .number(1)]),
            S.step("grade", "colorControls", ["image": "photo"]),
        ])
        let renderer = NotebookRenderer(photo: photo)
        let input = try renderer.render(notebook: nb, cell: "photo", request: CellRenderRequest(width: 160)).image
        for cell in ["big", "march", "grade"] {
            let out = try renderer.render(notebook: nb, cell: cell, request: CellRenderRequest(width: 160)).image
            let worst = zip(out.samples, input.samples).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(worst <= 1, "\(cell) differs by \(worst)")
        }
    }
}
