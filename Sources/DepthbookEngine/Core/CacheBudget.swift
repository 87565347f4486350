import Synchronization

/// One byte budget shared by many render caches (one per open photo): when their entries together pass
/// `limit`, the least recently used entry of all of them goes first, whichever cache holds it.
public final class CacheBudget: Sendable {
    /// The bytes the caches may hold when nothing has made room for other work.
    public let limit: Int
    private let clock = Atomic<UInt64>(0)
    /// Room lent to work outside the caches (`withRoom`), taken off `limit` while it runs.
    private let lent = Atomic<Int>(0)
    private let members = Locked<[ObjectIdentifier: WeakCache]>([:])

    private struct WeakCache: @unchecked Sendable {
        weak var cache: RenderCache?
    }

    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// A time stamp for "last used", comparable across every cache of this budget.
    func tick() -> UInt64 { clock.wrappingAdd(1, ordering: .relaxed).newValue }

    func register(_ cache: RenderCache) {
        members.withLock { $0[ObjectIdentifier(cache)] = WeakCache(cache: cache) }
    }

    private var caches: [RenderCache] {
        members.withLock { list in
            list = list.filter { $0.value.cache != nil }
            return list.values.compactMap(\.cache)
        }
    }

    /// Bytes held by every cache of this budget.
    public var bytes: Int { caches.reduce(0) { $0 + $1.bytes } }

    /// What the caches may hold now: `limit` less the room lent out.
    public var currentLimit: Int { max(0, limit - lent.load(ordering: .relaxed)) }

    /// Runs `body` with `bytes` of the caches' share lent to it: the oldest entries are evicted first so the
    /// caches hold at most `limit - bytes`, and stay under that until `body` returns. For work whose memory
    /// is not a cache entry but must fit the same budget (the person matte's network).
    public func withRoom<T>(_ bytes: Int, _ body: () throws -> T) rethrows -> T {
        let lending = max(0, bytes)
        lent.add(lending, ordering: .relaxed)
        defer { lent.subtract(lending, ordering: .relaxed) }
        enforce()
        return try body()
    }

    /// Evicts entries across caches until the total is within the limit: those no render asked for again first,
    /// then the rest, pinned ones last, oldest first in each (`RenderCache` says why). Locks are taken one cache
    /// at a time, never together, so this cannot deadlock with a cache storing or looking up.
    func enforce() {
        while true {
            let all = caches
            let limit = currentLimit
            guard all.reduce(0, { $0 + $1.bytes }) > limit else { return }
            let pressure = RenderCache.Pressure(reusedBytes: all.reduce(0) { $0 + $1.reusedBytes },
                                                pinnedBytes: all.reduce(0) { $0 + $1.pinnedBytes }, limit: limit)
            let first = all.compactMap { cache in cache.firstToEvict(pressure).map { (cache, $0) } }
                .min { $0.1 < $1.1 }
            guard let (victim, _) = first, victim.evictFirst(pressure) else { return }
        }
    }
}
