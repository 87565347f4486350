@testable import DepthbookEngine
import Testing

/// Entries asked for again outlast a trail of entries nobody asked for twice (a drag's stages for slider values
/// passed by), until they hold more than their share of the limit. (The entries and helpers are the budget tests'.)
extension CacheBudgetTests {
    @Test func anEntryAskedForAgainOutlastsNewerOnesNobodyAskedFor() {
        let cache = RenderCache(byteLimit: 4 * Self.entryBytes)
        cache.store(key("source"), size: Self.size, entry(0))
        #expect(held(cache, "source"))  // asked for again: protected
        for i in 0..<10 { cache.store(key("drag\(i)"), size: Self.size, entry(Float(i))) }
        #expect(cache.bytes == 4 * Self.entryBytes)
        #expect(cache.reusedBytes == Self.entryBytes)
        // Plain LRU would have let it go after three newer entries.
        #expect(held(cache, "source"))
        #expect(!held(cache, "drag0") && !held(cache, "drag6"))
        #expect(held(cache, "drag7") && held(cache, "drag8") && held(cache, "drag9"))
    }

    @Test func keptStatisticsAreProtectedFromTheStart() {
        let cache = RenderCache(byteLimit: 3 * Self.entryBytes)
        cache.keep(key("sorted"), entry(1))
        for i in 0..<5 { cache.store(key("drag\(i)"), size: Self.size, entry(Float(i))) }
        #expect(cache.kept(key("sorted")) != nil)
    }

    /// Past `protectedShare` of the limit, protected entries are evicted oldest first like any other, so a
    /// photo's old favourites cannot keep a new one's stages out for good.
    @Test func protectedEntriesPastTheirShareGoOldestFirst() {
        let cache = RenderCache(byteLimit: 4 * Self.entryBytes)
        for name in ["a", "b", "c", "d"] {
            cache.store(key(name), size: Self.size, entry(1))
            #expect(held(cache, name))
        }
        #expect(cache.reusedBytes == 4 * Self.entryBytes)  // all four protected: over 3/4 of the limit
        cache.store(key("new"), size: Self.size, entry(2))
        #expect(cache.bytes == 4 * Self.entryBytes)
        #expect(!held(cache, "a"), "the oldest protected entry goes")
        #expect(held(cache, "new") && held(cache, "b") && held(cache, "c") && held(cache, "d"))
    }

    /// Across the caches of one budget, an entry nobody asked for again goes before an older protected one.
    @Test func theBudgetEvictsUnprotectedEntriesOfAnyCacheFirst() {
        let budget = CacheBudget(limit: 4 * Self.entryBytes)
        let one = RenderCache(byteLimit: 1 << 20, budget: budget), two = RenderCache(byteLimit: 1 << 20, budget: budget)
        one.store(key("one-source"), size: Self.size, entry(0))
        #expect(held(one, "one-source"))
        for i in 0..<6 { two.store(key("two-drag\(i)"), size: Self.size, entry(Float(i))) }
        #expect(budget.bytes == 4 * Self.entryBytes)
        #expect(held(one, "one-source"))
        #expect(!held(two, "two-drag2") && held(two, "two-drag3") && held(two, "two-drag5"))
    }
}
