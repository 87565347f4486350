import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookServer

/// Twenty people on twenty photos: the whole photos go when room runs short, the copies reduced for previews
/// stay, and only what needs the whole image (an export, a crop, a wider preview) decodes it again.
@Suite struct PhotoCacheReducedTests {
    static let fullBytes = 800 * 600 * 3
    static let reducedBytes = 200 * 150 * 3

    func loaded(_ photo: Photo, _ reference: PhotoReference) -> LoadedPhoto {
        let gate = Gate()
        gate.open()
        return LoadedPhoto(reference: reference, photo: photo, facts: PhotoFactsJSON.make(photo, source: reference),
                           renderer: FakeRenderer(gate: gate))
    }

    /// Room for one whole photo and three reduced ones.
    func cache(loads: Locked<Int>, carried: Locked<Int>) -> PhotoCache {
        PhotoCache(byteLimit: Self.fullBytes + 3 * Self.reducedBytes,
                   reduce: { [self] full in
                       guard let reduced = try? full.photo.reducedForPreviews(maxSide: 200), reduced.isReduced else { return nil }
                       return loaded(reduced, full.reference)
                   },
                   carryPlanes: { _, fresh in
                       carried.withLock { $0 += 1 }
                       return fresh
                   }) { [self] reference in
            loads.withLock { $0 += 1 }
            return loaded(Photo(image: RGBImage8(width: 800, height: 600, channels: 3, repeating: 90)), reference)
        }
    }

    @Test func previewsComeFromTheReducedCopiesAndTheWholePhotosGoFirst() throws {
        let loads = Locked(0), carried = Locked(0)
        let photos = cache(loads: loads, carried: carried)
        let a = PhotoReference.upload("a"), b = PhotoReference.upload("b"), c = PhotoReference.upload("c")
        for reference in [a, b, c] {
            let preview = try photos.photo(reference, for: .preview(width: 100))
            #expect(preview.photo.isReduced && preview.photo.width == 800)
        }
        #expect(loads.withLock { $0 } == 3)
        // Only the newest is kept whole; the others' reduced copies stay.
        #expect(photos.bytes == Self.fullBytes + 3 * Self.reducedBytes)

        // A preview no wider than the reduced copy, the facts, a histogram: no decode.
        #expect(try photos.photo(a, for: .preview(width: 200)).photo.isReduced)
        #expect(try photos.photo(b, for: .any).photo.isReduced)
        #expect(loads.withLock { $0 } == 3)

        // A wider preview needs the whole photo: decoded again, given what was made for the kept copy, which
        // stays the one previews use (its render cache with it).
        let keptCopy = try photos.photo(a, for: .preview(width: 100))
        let whole = try photos.photo(a, for: .preview(width: 400))
        #expect(!whole.photo.isReduced && whole.photo.image.width == 800)
        #expect(loads.withLock { $0 } == 4 && carried.withLock { $0 } == 1)
        #expect(try photos.photo(a, for: .preview(width: 100)).renderer === keptCopy.renderer)
        #expect(try !photos.photo(a, for: .full).photo.isReduced)
        #expect(loads.withLock { $0 } == 4)
        // c's whole photo made room for a's.
        #expect(photos.bytes == Self.fullBytes + 3 * Self.reducedBytes)
        _ = try photos.photo(c, for: .full)
        #expect(loads.withLock { $0 } == 5)
    }

    /// A photo let go for room while its matte was being made comes back with the matte if a page shows it,
    /// and its pages hear of it; one nobody shows stays gone. Neither is decoded again.
    @Test func aPhotoLetGoBeforeItsMatteCameReturnsIfAPageShowsIt() throws {
        let release = DispatchSemaphore(value: 0), improvedCount = Locked(0)
        let improver = PhotoImprover(pool: RenderPool(width: 1)) { [self] awaiting in
            release.wait()
            improvedCount.withLock { $0 += 1 }
            var better = loaded(awaiting.photo, awaiting.reference)
            better.awaitsPersonMatte = false
            return better
        }
        let loads = Locked(0)
        // Room for one whole photo and nothing beside it.
        let photos = PhotoCache(byteLimit: Self.fullBytes, improver: improver) { [self] reference in
            loads.withLock { $0 += 1 }
            var fresh = loaded(Photo(image: RGBImage8(width: 800, height: 600, channels: 3, repeating: 90)), reference)
            fresh.awaitsPersonMatte = reference == .upload("shown") || reference == .upload("left")
            return fresh
        }
        let shown = PhotoReference.upload("shown"), left = PhotoReference.upload("left")
        let heard = Locked<[PhotoReference]>([])
        photos.whenImproved(shows: { $0 == shown }) { better in heard.withLock { $0.append(better.reference) } }

        #expect(try photos.photo(shown).awaitsPersonMatte)
        #expect(try photos.photo(left).awaitsPersonMatte)
        _ = try photos.photo(.upload("other"))
        #expect(photos.bytes == Self.fullBytes, "only the newest is kept")
        // The improver runs one photo at a time: the shown photo's matte comes first, then the other's.
        release.signal()
        release.signal()
        while improvedCount.withLock({ $0 }) < 2 { Thread.sleep(forTimeInterval: 0.01) }
        // Heard after the photo is kept again: wait until the listener ran.
        for _ in 0..<500 where heard.withLock({ $0 }).isEmpty { Thread.sleep(forTimeInterval: 0.01) }

        #expect(heard.withLock { $0 } == [shown])
        let loadsBefore = loads.withLock { $0 }
        let back = try photos.photo(shown)
        #expect(!back.awaitsPersonMatte && loads.withLock { $0 } == loadsBefore, "kept again with its matte, not decoded")
        #expect(try photos.photo(left).awaitsPersonMatte && loads.withLock { $0 } == loadsBefore + 1,
                "nobody showed it: it stayed gone, and opening it decodes it again")
    }

    @Test func aCropNeedsTheWholePhoto() {
        #expect(PhotoUse.render(CellRenderRequest(width: 736)) == .preview(width: 736))
        #expect(PhotoUse.render(CellRenderRequest(width: 736, region: .init(x: 0, y: 0, width: 10, height: 10))) == .full)
    }
}
