import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookServer

/// The studio runs the person matte network once per decoded photo, in the background: the photo opens at once
/// (saying the matte is coming), and once the matte is made, opening it again, from any session, and rendering
/// its cells reuse the matte kept with the photo.
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct PersonMatteOnceTests {
    static let notebook = #"{"format":"depthbook.notebook","version":1,"name":"n","photo":{"sample":"portrait"},"cells":[{"id":"photo","kind":"photo"}]}"#

    @Test func theNetworkRunsOncePerPhotoBesideItsFirstFrames() throws {
        let matter = try PersonMatter(modelsDirectory: ModelFiles.directory)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("person-matte-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let backend = try EffectsBackend(dataDirectory: data, personMatter: matter)
        let improver = PhotoImprover(pool: RenderPool(width: 2)) { backend.withPersonMatte($0) }
        let photos = PhotoCache(byteLimit: 1 << 30, improver: improver) { try backend.loadPhoto($0) }
        let improved = DispatchSemaphore(value: 0)
        photos.whenImproved { _ in improved.signal() }
        let id = try backend.uploadStore!.store(try SharedPhotos.bytes("spite-lensblur-extractor__table.jpg"), fileExtension: "jpg")
        let notebook = try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(Self.notebook.utf8)))

        // Opened before its matte exists: its subject comes from depth, and its facts say the matte is coming.
        let first = try photos.photo(.upload(id))
        #expect(first.awaitsPersonMatte && first.photo.personMatte == nil)
        #expect(Self.coming(first.facts) == .array([.string("personMatte")]))
        let early = try first.renderer.render(notebook: notebook, cell: "photo.subject", target: .preview(width: 200), isCancelled: { false })
        #expect(early.width == 200)
        #expect(improved.wait(timeout: .now() + 120) == .success, "the matte never came")

        for _ in 0..<3 {
            let loaded = try photos.photo(.upload(id))
            #expect(!loaded.awaitsPersonMatte && Self.coming(loaded.facts) == nil)
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
        let apple = try photos.photo(.upload(portrait))
        #expect(apple.photo.personMatte == nil && !apple.awaitsPersonMatte)
        #expect(matter.inferences == 1)
    }

    /// A photo without depth, opened before its matte is made: a cell that needs the depth estimated from the
    /// matte says it is coming (not that the photo has no depth), and renders once the matte is there.
    @Test func aPhotoWithoutDepthSaysItsDepthIsComing() throws {
        let matter = try PersonMatter(modelsDirectory: ModelFiles.directory)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("person-matte-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let backend = try EffectsBackend(dataDirectory: data, personMatter: matter)
        // The portrait's pixels alone, as any phone without depth would save them.
        let portrait = try PhotoReader.read(data: try SharedPhotos.bytes("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let plain = try JPEGEncoder.encode(portrait.image, quality: 90)
        let id = try backend.uploadStore!.store(plain, fileExtension: "jpg")
        let notebook = try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(Self.notebook.utf8)))

        let first = try backend.loadPhoto(.upload(id))
        #expect(first.awaitsPersonMatte && first.photo.depth == nil)
        let message = try #require(throws: (any Error).self) {
            try first.renderer.render(notebook: notebook, cell: "photo.disparity", target: .preview(width: 200), isCancelled: { false })
        }
        #expect("\(message)".contains("photo.disparity is coming"), "\(message)")
        #expect(!"\(message)".contains("taken without depth"), "\(message)")

        let matted = backend.withPersonMatte(first)
        #expect(matted.photo.depth?.estimate != nil)
        let frame = try matted.renderer.render(notebook: notebook, cell: "photo.disparity", target: .preview(width: 200), isCancelled: { false })
        #expect(frame.width == 200)
    }

    /// The facts' `coming` list, if any.
    static func coming(_ facts: JSONValue) -> JSONValue? {
        guard case .object(let fields) = facts else { return nil }
        return fields["coming"]
    }
}
