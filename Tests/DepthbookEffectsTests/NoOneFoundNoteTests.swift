import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Testing
@testable import DepthbookEffects

/// Big Head and Marching are made for a person or pet: on a photo where the network finds no one (the Android
/// table), the cell says so; on the pug (found) it does not.
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct NoOneFoundNoteTests {
    typealias S = EffectTestSupport

    @Test(arguments: [("spite-lensblur-extractor__table.jpg", true), ("pillow_heif__pug.heic", false)])
    func bigHeadAndMarchingSayWhenNoOneIsThere(file: String, noOne: Bool) throws {
        let plain = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let photo = try PersonMatter(modelsDirectory: ModelFiles.directory).withPersonMatte(plain)
        #expect(photo.personMatte != nil && photo.faces.isEmpty)
        let notebook = S.notebook([
            S.step("head", "bigHead", ["image": "photo", "matte": "photo.portraitEffectsMatte"]),
            S.step("march", "marching", ["image": "photo", "matte": "photo.portraitEffectsMatte"]),
        ])
        let renderer = NotebookRenderer(photo: photo)
        for (cell, title) in [("head", BigHeadEffect.description.title), ("march", MarchingEffect.description.title)] {
            let notes = try renderer.render(notebook: notebook, cell: cell, request: CellRenderRequest(width: 160)).notes
            let said = notes.contains { $0.hasPrefix("\(title) is made for a person or pet") }
            #expect(said == noOne, "\(file) \(cell): \(notes)")
        }
    }
}
