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

    @Test func aCropNeedsTheWholePhoto() {
        #expect(PhotoUse.render(CellRenderRequest(width: 736)) == .preview(width: 736))
        #expect(PhotoUse.render(CellRenderRequest(width: 736, region: .init(x: 0, y: 0, width: 10, height: 10))) == .full)
    }
}
