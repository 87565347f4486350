import DepthbookEngine
import Testing

/// One byte budget over several photos' caches, and the room it lends to work outside them (the person matte).
struct CacheBudgetTests {
    /// A 10×10 single-channel buffer: 400 bytes.
    static let entryBytes = 400
    static let size = PixelSize(width: 10, height: 10)

    func entry(_ value: Float) -> PixelBuffer {
        PixelBuffer(region: PixelRect(Self.size), channels: 1, repeating: value)
    }

    func key(_ name: String) -> NodeKey { NodeKey(name, inputs: []) }

    func held(_ cache: RenderCache, _ name: String) -> Bool {
        cache.lookup(key(name), RenderTarget(size: Self.size)) != nil
    }

    @Test func theOldestEntryOfAnyCacheGoesFirst() {
        let budget = CacheBudget(limit: 3 * Self.entryBytes)
        let one = RenderCache(byteLimit: 1 << 20, budget: budget), two = RenderCache(byteLimit: 1 << 20, budget: budget)
        one.store(key("a"), size: Self.size, entry(1))
        two.store(key("b"), size: Self.size, entry(2))
        one.store(key("c"), size: Self.size, entry(3))
        two.store(key("d"), size: Self.size, entry(4))
        #expect(budget.bytes == 3 * Self.entryBytes)
        #expect(!held(one, "a") && held(two, "b") && held(one, "c") && held(two, "d"))
    }

    /// Lending room evicts the oldest entries down to the limit less the room, keeps every cache under that
    /// while the work runs (a render storing meanwhile evicts again), and gives the room back after.
    @Test func roomLentIsTakenFromTheCachesUntilTheWorkEnds() {
        let budget = CacheBudget(limit: 4 * Self.entryBytes)
        let one = RenderCache(byteLimit: 1 << 20, budget: budget), two = RenderCache(byteLimit: 1 << 20, budget: budget)
        for (i, name) in ["a", "b", "c", "d"].enumerated() {
            (i.isMultiple(of: 2) ? one : two).store(key(name), size: Self.size, entry(Float(i)))
        }
        #expect(budget.bytes == 4 * Self.entryBytes)
        let during = budget.withRoom(3 * Self.entryBytes) { () -> (Int, Int, Int) in
            let lent = budget.bytes
            // Storing "e" evicts "d", now the oldest: the room stays lent.
            two.store(key("e"), size: Self.size, entry(5))
            return (lent, budget.bytes, budget.currentLimit)
        }
        #expect(during.0 == Self.entryBytes)
        #expect(during.1 == Self.entryBytes)
        #expect(during.2 == Self.entryBytes)
        #expect(held(two, "e") && !held(one, "a") && !held(two, "b") && !held(one, "c") && !held(two, "d"))
        #expect(budget.currentLimit == 4 * Self.entryBytes)
        for name in ["f", "g", "h"] { one.store(key(name), size: Self.size, entry(7)) }
        #expect(budget.bytes == 4 * Self.entryBytes)
    }

    /// More room than the whole limit empties the caches and never goes negative; rooms lent at once add up.
    @Test func roomsAddUpAndNeverGoBelowNothing() {
        let budget = CacheBudget(limit: 2 * Self.entryBytes)
        let cache = RenderCache(byteLimit: 1 << 20, budget: budget)
        cache.store(key("a"), size: Self.size, entry(1))
        cache.store(key("b"), size: Self.size, entry(2))
        let inner = budget.withRoom(Self.entryBytes) {
            budget.withRoom(5 * Self.entryBytes) { (budget.bytes, budget.currentLimit) }
        }
        #expect(inner.0 == 0 && inner.1 == 0)
        #expect(budget.currentLimit == 2 * Self.entryBytes)
    }
}
