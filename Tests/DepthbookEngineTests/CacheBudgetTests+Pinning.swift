@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// What every render of a photo reads first (its planes reduced to a preview's size, its statistics) outlasts
/// the trails of stages that twenty people's drags leave, even once protected entries are past their share.
/// (The entries and helpers are the budget tests'.)
extension CacheBudgetTests {
    /// Stores `name` and asks for it again, as a stage a drag comes back to: it is protected.
    func storeAndReuse(_ cache: RenderCache, _ name: String) {
        cache.store(key(name), size: Self.size, entry(1))
        _ = held(cache, name)
    }

    /// Protected entries past their share go oldest first, but a pinned one is not among them: before pinning,
    /// the photo reduced to the preview was the oldest entry each time and went first.
    @Test func aPinnedEntryOutlastsProtectedOnesPastTheirShare() {
        // Sixteen entries' room: an entry is pinned only within a sixteenth of the limit (`pinnedPart`).
        let cache = RenderCache(byteLimit: 16 * Self.entryBytes)
        cache.store(key("photo"), size: Self.size, entry(0), pinned: true)
        for i in 0..<16 { storeAndReuse(cache, "drag\(i)") }
        #expect(cache.bytes == 16 * Self.entryBytes)
        #expect(cache.reusedBytes == 15 * Self.entryBytes, "past the protected share: the oldest goes, whatever its tier")
        #expect(cache.pinnedBytes == Self.entryBytes)
        #expect(!held(cache, "drag0"))
        #expect(held(cache, "photo") && held(cache, "drag1") && held(cache, "drag15"))
    }

    /// A cache full of pinned entries lets the oldest of them go, so one photo's sizes of old cannot keep a new
    /// size out.
    @Test func aCacheFullOfPinnedEntriesLetsTheOldestGo() {
        let cache = RenderCache(byteLimit: 16 * Self.entryBytes)
        for i in 0..<17 { cache.store(key("size\(i)"), size: Self.size, entry(Float(i)), pinned: true) }
        #expect(cache.bytes == 16 * Self.entryBytes && cache.pinnedBytes == 16 * Self.entryBytes)
        #expect(!held(cache, "size0"))
        #expect((1..<17).allSatisfy { held(cache, "size\($0)") })
    }

    /// An entry over `1 / pinnedPart` of the limit is kept but not pinned (a whole-photo float copy).
    @Test func aLargeEntryIsNotPinned() {
        let cache = RenderCache(byteLimit: RenderCache.pinnedPart * Self.entryBytes)
        let large = PixelBuffer(region: PixelRect(PixelSize(width: 20, height: 10)), channels: 1, repeating: 1)
        cache.store(key("whole"), size: PixelSize(width: 20, height: 10), large, pinned: true)
        cache.store(key("preview"), size: Self.size, entry(1), pinned: true)
        #expect(cache.bytes == large.byteCount + Self.entryBytes)
        #expect(cache.pinnedBytes == Self.entryBytes)
    }

    /// Across one budget, another photo's protected trail does not push out this photo's pinned entry.
    @Test func theBudgetKeepsAPhotosPinnedEntryAgainstAnotherPhotosTrail() {
        let budget = CacheBudget(limit: 8 * Self.entryBytes)
        let one = RenderCache(byteLimit: 1 << 20, budget: budget), two = RenderCache(byteLimit: 1 << 20, budget: budget)
        one.store(key("photo"), size: Self.size, entry(0), pinned: true)
        for i in 0..<8 { storeAndReuse(two, "drag\(i)") }
        #expect(budget.bytes == 8 * Self.entryBytes)
        #expect(!held(two, "drag0"))
        #expect(held(one, "photo") && held(two, "drag1") && held(two, "drag7"))
    }

    /// The evaluator pins a photo's plane rendered smaller than the photo (a preview reads it every frame), not
    /// the plane at its own size.
    @Test func theEvaluatorPinsAPhotoReducedToAPreview() throws {
        let photo = EngineFixtures.photo(width: 200, height: 150)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: "p"))
        let cache = RenderCache(byteLimit: 64 << 20)
        let preview = PixelSize(width: 50, height: 38)
        let reduced = try Evaluator(context: RenderContext(cache: cache)).render(image, RenderTarget(size: preview))
        #expect(cache.pinnedBytes == reduced.byteCount)
        let whole = RenderCache(byteLimit: 64 << 20)
        _ = try Evaluator(context: RenderContext(cache: whole)).render(image.applying(GaussianBlur(sigma: 2)), RenderTarget(size: image.extent))
        #expect(whole.bytes > 0 && whole.pinnedBytes == 0)
    }

    /// A stage made from the photo alone that says so (`Node.pinnedInCache`) is pinned at a preview's size like the
    /// photo's planes, with the same key as its unmarked twin; at its own size it is kept but not pinned.
    @Test func aStageMarkedPinnedIsPinnedAtAPreviewsSize() throws {
        let photo = EngineFixtures.photo(width: 200, height: 150)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: "p"))
        let blurred = try image.applying(GaussianBlur(sigma: 2))
        let marked = try Node(GaussianBlur(sigma: 2), [image], pinnedInCache: true)
        #expect(marked.key == blurred.key && marked.pinnedInCache && !blurred.pinnedInCache)
        let preview = PixelSize(width: 50, height: 38)
        let plain = RenderCache(byteLimit: 64 << 20)
        let reduced = try Evaluator(context: RenderContext(cache: plain)).render(blurred, RenderTarget(size: preview))
        // Only the photo reduced to the preview is pinned when the blur is not marked.
        #expect(plain.pinnedBytes == reduced.byteCount)
        let pinning = RenderCache(byteLimit: 64 << 20)
        let same = try Evaluator(context: RenderContext(cache: pinning)).render(marked, RenderTarget(size: preview))
        #expect(same.samples == reduced.samples)
        #expect(pinning.pinnedBytes == 2 * reduced.byteCount)
        let whole = RenderCache(byteLimit: 64 << 20)
        _ = try Evaluator(context: RenderContext(cache: whole)).render(marked, RenderTarget(size: image.extent))
        #expect(whole.bytes > 0 && whole.pinnedBytes == 0)
    }
}
