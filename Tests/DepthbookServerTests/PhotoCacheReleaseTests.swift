import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookServer

/// Once people leave, the photos they had open (and their render caches) are let go after a while.
@Suite struct PhotoCacheReleaseTests {
    /// A cache whose loader counts its loads and makes a 4×2 photo for any reference.
    func cache(loads: Locked<Int>) -> PhotoCache {
        let gate = Gate()
        gate.open()
        return PhotoCache(byteLimit: 1 << 30) { reference in
            loads.withLock { $0 += 1 }
            let photo = Photo(image: RGBImage8(width: 4, height: 2, channels: 3, repeating: 128))
            return LoadedPhoto(reference: reference, photo: photo, facts: PhotoFactsJSON.make(photo, source: reference),
                               renderer: FakeRenderer(gate: gate))
        }
    }

    @Test func aPhotoNobodyShowsGoesAfterItsIdleTimeAndIsLoadedAgainWhenAsked() throws {
        let loads = Locked(0)
        let photos = cache(loads: loads)
        let shown = PhotoReference.sample("shown"), left = PhotoReference.sample("left")
        _ = try photos.photo(shown)
        _ = try photos.photo(left)
        let perPhoto = photos.bytes / 2
        #expect(perPhoto > 0)

        // Within the idle time nothing goes, shown or not.
        #expect(photos.releaseUnused(keeping: [shown], idle: .seconds(60), now: .now + .seconds(30)) == 0)
        #expect(photos.bytes == 2 * perPhoto)
        // After it, only the photo no session shows.
        #expect(photos.releaseUnused(keeping: [shown], idle: .seconds(60), now: .now + .seconds(61)) == 1)
        #expect(photos.bytes == perPhoto)
        _ = try photos.photo(shown)
        #expect(loads.withLock { $0 } == 2, "the photo still shown was not loaded again")
        _ = try photos.photo(left)
        #expect(loads.withLock { $0 } == 3, "the photo let go is decoded again for whoever asks")
    }

    @Test func askingForAPhotoRestartsItsIdleTime() throws {
        let photos = cache(loads: Locked(0))
        let reference = PhotoReference.sample("asked")
        _ = try photos.photo(reference)
        let start = ContinuousClock.now
        Thread.sleep(forTimeInterval: 0.05)
        _ = try photos.photo(reference)  // a hit: used again now
        // Measured from the second ask, 60 s have not passed at start + 60 s.
        #expect(photos.releaseUnused(keeping: [], idle: .seconds(60), now: start + .seconds(60)) == 0)
        #expect(photos.releaseUnused(keeping: [], idle: .seconds(60), now: start + .seconds(61)) == 1)
        #expect(photos.bytes == 0)
    }

    @Test func theHubNamesThePhotosItsSessionsHaveOpen() throws {
        let studio = try StudioFixture.studio()
        #expect(studio.hub.referencedPhotos().isEmpty)
        let client = TestClient(studio: studio, id: 1)
        #expect(client.request(["type": "hello", "protocol": 1])?.ok == true)
        #expect(client.request(["type": "openNotebook", "name": "depth-threshold"])?.ok == true)
        #expect(studio.hub.referencedPhotos() == [.sample("tiny")])
    }
}
