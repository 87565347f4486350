import DepthbookTestSupport
import Foundation
import Synchronization
import Testing
@testable import DepthbookServer

/// An upload is decoded to check it; the page that opens it next gets that decode instead of a second one,
/// when it fits beside the photos in use (never pushing one out).
@Suite(.timeLimit(.minutes(30)))
struct UploadDecodeOnceTests {
    /// A studio's photo side: the real backend, a photo cache that counts its decodes, the upload handler.
    final class Setup: Sendable {
        let backend: EffectsBackend
        let photos: PhotoCache
        let handler: UploadHandler
        let decodes = Decodes()

        init(cacheBytes: Int) throws {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("decode-once-\(UUID().uuidString)").path
            let backend = try EffectsBackend(dataDirectory: data)
            self.backend = backend
            let photos = PhotoCache(byteLimit: cacheBytes) { [decodes] reference in
                decodes.count.add(1, ordering: .relaxed)
                return try backend.loadPhoto(reference)
            }
            self.photos = photos
            handler = UploadHandler(store: try UploadStore(directory: data + "/uploads"), backend: backend,
                                    limitBytes: 64 << 20, decoded: { photos.offer($0) })
        }
    }

    final class Decodes: Sendable {
        let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
    }

    static func upload(_ name: String, _ setup: Setup) throws -> String {
        let response = setup.handler.upload(try SharedPhotos.bytes(name), depthFor: nil)
        #expect(response.status == 200)
        let reply = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return try #require(reply?["upload"] as? String)
    }

    @Test func openingAnUploadUsesTheDecodeThatCheckedIt() throws {
        let setup = try Setup(cacheBytes: 1 << 30)
        let id = try Self.upload("fidmaa-portrait-analyser__jpeg_depth_data.jpg", setup)
        let opened = try setup.photos.photo(.upload(id))
        #expect(setup.decodes.value == 0, "the upload was decoded again")
        // The same photo a fresh decode of the stored file gives.
        let fresh = try setup.backend.loadPhoto(.upload(id))
        #expect(opened.photo.image.samples == fresh.photo.image.samples)
        #expect(opened.photo.depth?.map.samples == fresh.photo.depth?.map.samples)
        #expect(opened.facts == fresh.facts)
    }

    @Test func anUploadNeverPushesOutAPhotoInUse() throws {
        let probe = try Setup(cacheBytes: 1 << 30)
        let inUse = try probe.photos.photo(.sample("portrait"))
        // Room for the photo in use and nothing more.
        let setup = try Setup(cacheBytes: inUse.byteCount)
        _ = try setup.photos.photo(.sample("portrait"))
        let id = try Self.upload("fidmaa-portrait-analyser__jpeg_depth_data.jpg", setup)
        #expect(setup.decodes.value == 1)
        _ = try setup.photos.photo(.sample("portrait"))
        #expect(setup.decodes.value == 1, "the photo in use was pushed out by an upload")
        _ = try setup.photos.photo(.upload(id))
        #expect(setup.decodes.value == 2, "an upload that did not fit was kept anyway")
    }

    /// Only the newest upload nobody has opened is kept: uploading many photos holds one, not many.
    @Test func onlyTheNewestUnopenedUploadIsKept() throws {
        let setup = try Setup(cacheBytes: 1 << 30)
        let first = try Self.upload("fidmaa-portrait-analyser__jpeg_depth_data.jpg", setup)
        let second = try Self.upload("spite-lensblur-extractor__table.jpg", setup)
        _ = try setup.photos.photo(.upload(second))
        #expect(setup.decodes.value == 0)
        _ = try setup.photos.photo(.upload(first))
        #expect(setup.decodes.value == 1, "an older unopened upload was still kept")
    }

    /// An upload pushed out before it was opened, then opened (decoded again), is a photo in use: a later
    /// upload does not take its place.
    @Test func anUploadOpenedAfterBeingPushedOutIsInUse() throws {
        let probe = try Setup(cacheBytes: 1 << 30)
        let size = try probe.photos.photo(.upload(try Self.upload("fidmaa-portrait-analyser__jpeg_depth_data.jpg", probe))).byteCount
        let setup = try Setup(cacheBytes: size)
        let first = try Self.upload("fidmaa-portrait-analyser__jpeg_depth_data.jpg", setup)
        _ = try setup.photos.photo(.sample("portrait"))  // pushes the unopened upload out
        _ = try setup.photos.photo(.upload(first))
        #expect(setup.decodes.value == 2)
        _ = try Self.upload("spite-lensblur-extractor__table.jpg", setup)
        _ = try setup.photos.photo(.upload(first))
        #expect(setup.decodes.value == 2, "a new upload pushed out the photo being used")
    }
}
