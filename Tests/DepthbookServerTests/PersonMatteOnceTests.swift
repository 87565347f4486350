import DepthbookCodecs
import DepthbookEffects
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookServer

/// The studio runs the person matte network once per decoded photo: opening it again, from any session, and
/// rendering its cells reuse the matte kept with the photo.
@Suite(.timeLimit(.minutes(5)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct PersonMatteOnceTests {
    static let notebook = #"{"format":"depthbook.notebook","version":1,"name":"n","photo":{"sample":"portrait"},"cells":[{"id":"photo","kind":"photo"}]}"#

    @Test func theNetworkRunsOncePerPhoto() throws {
        let matter = try PersonMatter(modelsDirectory: ModelFiles.directory)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("person-matte-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let backend = try EffectsBackend(dataDirectory: data, personMatter: matter)
        let photos = PhotoCache(byteLimit: 1 << 30) { try backend.loadPhoto($0) }
        let id = try backend.uploadStore!.store(try SharedPhotos.bytes("spite-lensblur-extractor__table.jpg"), fileExtension: "jpg")
        let notebook = try JSONDecoder().decode(Notebook.self, from: Data(Self.notebook.utf8))
        for _ in 0..<3 {
            let loaded = try photos.photo(.upload(id))
            for cell in ["photo.personMatte", "photo.subject", "photo.portraitEffectsMatte"] {
                let frame = try loaded.renderer.render(notebook: notebook, cell: cell, target: .preview(width: 200), isCancelled: { false })
                #expect(frame.width == 200)
            }
        }
        let loaded = try photos.photo(.upload(id))
        #expect(matter.inferences == 1, "the network ran \(matter.inferences) times for one photo")
        // Kept with the photo, counted in what keeping it costs, and listed in the facts the page shows.
        let matte = try #require(loaded.photo.personMatte)
        #expect(loaded.byteCount >= loaded.photo.image.samples.count + matte.samples.count * 4)
        #expect(PhotoFacts(loaded.photo).mattes?.contains { $0.kind == "personMatte" && $0.width == matte.width } == true)
        // A photo with Apple's portrait matte keeps it as the truth: the network is not run for it.
        let portrait = try backend.uploadStore!.store(try SharedPhotos.bytes("fidmaa-portrait-analyser__jpeg_depth_data.jpg"), fileExtension: "jpg")
        #expect(try photos.photo(.upload(portrait)).photo.personMatte == nil)
        #expect(matter.inferences == 1)
    }
}
