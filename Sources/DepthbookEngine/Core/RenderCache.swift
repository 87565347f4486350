
/// Rendered node outputs kept between renders, bounded in bytes, evicting the least recently used.
///
/// Entries are keyed by (node key, frame size) and hold a region; a request is served by any entry of the
/// same key and size whose region contains the one asked for. Shared by every render of a session, so
/// moving one slider recomputes only the nodes whose keys changed.
///
/// Entries that were never asked for again go first: a drag leaves a trail of stages for slider values
/// nobody comes back to, and under plain LRU twenty people's trails pushed out what every one of their
/// renders reads (the photo reduced to the preview, the statistics found once per photo), so each render
/// made those again. An entry asked for a second time (or kept as statistics) is protected, until protected
/// entries hold more than `protectedShare` of the limit; then the oldest of all goes, as before.
///
/// Above those, what a photo's every render reads first whatever the sliders say is pinned: its planes reduced to
/// a preview's size and its statistics (`keep`). With twenty people each on their own photo, protected entries
/// are always past their share, and each person's trail of new stages pushed out the photo reduced to the
/// preview and the sorted samples the percentile is cut from, so the next render made them again (a third of
/// the room's CPU, perf). Pinned entries go last (`pinnedShare`), oldest first among themselves.
public final class RenderCache: Sendable {
    struct Slot: Hashable {
        let key: NodeKey
        let size: PixelSize
    }

    struct Entry {
        let buffer: PixelBuffer
        var lastUse: UInt64
        /// Asked for again after it was stored, or kept as statistics: evicted after the entries that were not.
        var reused = false
        /// Made from the photo alone (see the type's comment): evicted after every other entry.
        var pinned = false
    }

    /// Most of the limit protected entries may hold before they are evicted like any other.
    static let protectedShare = 0.75
    /// Most of the limit pinned entries may hold before they are evicted like any other: all of it, so pinned
    /// entries always go after the rest, oldest first among themselves. Twenty editors on their own photos,
    /// scrolled to the slider, p95: 1.9 s at 0.85 of the limit, 1.7 s at 0.95, 1.3 s at 1 (at 0.5, no gain: twenty
    /// photos' reduced planes were past it). Each pinned entry is at most `1 / pinnedPart` of the limit.
    static let pinnedShare = 1.0
    /// An entry over this part of the limit is never pinned: a photo reduced to a 2048-px stage (38 MB of floats)
    /// must not take the room of a dozen other photos' previews.
    static let pinnedPart = 16

    /// Which tiers have outgrown their share of the limit (then their entries rank by last use alone).
    struct Pressure {
        let protectedFull: Bool
        let pinnedFull: Bool

        /// From the bytes held, protected (reused) and pinned, against `limit`.
        init(reusedBytes: Int, pinnedBytes: Int, limit: Int) {
            protectedFull = Double(reusedBytes) > RenderCache.protectedShare * Double(limit)
            pinnedFull = Double(pinnedBytes) > RenderCache.pinnedShare * Double(limit)
        }
    }

    struct State {
        var slots: [Slot: [Entry]] = [:]
        var bytes = 0
        /// Bytes of the entries marked `reused`.
        var reusedBytes = 0
        /// Bytes of the entries marked `pinned`.
        var pinnedBytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
        /// Pointwise results asked for inside fused chains, which a chain does not keep (see `isRepeat`).
        var asked: Set<Slot> = []
    }

    /// Distinct pointwise results remembered by `isRepeat` before the memory starts afresh.
    static let askedLimit = 1024

    /// Most bytes of samples kept.
    public let byteLimit: Int
    /// Shared with the other photos' caches, when given: their entries together stay within its limit.
    private let budget: CacheBudget?
    private let state = Locked(State())

    public init(byteLimit: Int, budget: CacheBudget? = nil) {
        self.byteLimit = max(0, byteLimit)
        self.budget = budget
        budget?.register(self)
    }

    /// "Now" for last-use stamps: the shared budget's clock, so entries compare across caches.
    private func now(_ s: inout State) -> UInt64 {
        if let budget { return budget.tick() }
        s.clock += 1
        return s.clock
    }

    /// Which entry goes first: the lower rank. Pinned entries rank above the rest and reused ones above those
    /// nobody asked for again, each tier only while it holds no more than its share (`Pressure`); past it, its
    /// entries rank with the lowest tier, by last use alone.
    struct Rank: Comparable {
        var tier: Int
        var lastUse: UInt64

        init(reused: Bool, pinned: Bool, lastUse: UInt64, pressure: Pressure) {
            tier = pinned && !pressure.pinnedFull ? 2 : reused && !pressure.protectedFull ? 1 : 0
            self.lastUse = lastUse
        }

        static func < (a: Rank, b: Rank) -> Bool { (a.tier, a.lastUse) < (b.tier, b.lastUse) }
    }

    /// Bytes held by reused entries.
    var reusedBytes: Int { state.withLock { $0.reusedBytes } }
    /// Bytes held by pinned entries.
    var pinnedBytes: Int { state.withLock { $0.pinnedBytes } }

    /// The rank of the entry that would be evicted first (nil when empty).
    func firstToEvict(_ pressure: Pressure) -> Rank? {
        state.withLock { s in Self.first(s, pressure)?.rank }
    }

    /// The entry that ranks first to go. Reads each entry's fields in place: copying the entries retained and
    /// released every buffer, and a budget over twenty photos' caches asks this of every cache per eviction
    /// (12 % of a room's CPU went to it, perf).
    private static func first(_ s: State, _ pressure: Pressure) -> (slot: Slot, index: Int, rank: Rank)? {
        var first: (slot: Slot, index: Int, rank: Rank)?
        for (slot, list) in s.slots {
            for index in list.indices {
                let rank = Rank(reused: list[index].reused, pinned: list[index].pinned, lastUse: list[index].lastUse,
                                pressure: pressure)
                if first == nil || rank < first!.rank { first = (slot, index, rank) }
            }
        }
        return first
    }

    /// Drops the entry that ranks first to go; false when there is none.
    @discardableResult
    func evictFirst(_ pressure: Pressure) -> Bool {
        state.withLock { s in Self.evictFirst(&s, pressure) }
    }

    private static func evictFirst(_ s: inout State, _ pressure: Pressure) -> Bool {
        guard let (victimSlot, index, _) = first(s, pressure) else { return false }
        var list = s.slots[victimSlot]!
        let gone = list.remove(at: index)
        s.forget(gone)
        s.slots[victimSlot] = list.isEmpty ? nil : list
        return true
    }

    private func pressure(_ s: State) -> Pressure {
        Pressure(reusedBytes: s.reusedBytes, pinnedBytes: s.pinnedBytes, limit: byteLimit)
    }

    /// Marks entry `index` of `slot` used now (and reused).
    private static func touch(_ s: inout State, _ slot: Slot, _ index: Int, at stamp: UInt64) {
        guard var entries = s.slots[slot] else { return }
        entries[index].lastUse = stamp
        if !entries[index].reused {
            entries[index].reused = true
            s.reusedBytes += entries[index].buffer.byteCount
        }
        s.slots[slot] = entries
    }

    /// A cached buffer covering `target.region` (cropped to it), or nil. Counts a hit or a miss.
    public func lookup(_ key: NodeKey, _ target: RenderTarget) -> PixelBuffer? {
        let found: PixelBuffer? = state.withLock { s in
            let stamp = now(&s)
            let slot = Slot(key: key, size: target.size)
            guard var entries = s.slots[slot],
                  let index = entries.firstIndex(where: { $0.buffer.region.contains(target.region) })
            else {
                s.misses += 1
                return nil
            }
            Self.touch(&s, slot, index, at: stamp)
            s.hits += 1
            return entries[index].buffer
        }
        return found?.cropped(to: target.region)
    }

    /// Keeps `buffer` (rendered for `key` at `size`), then evicts old entries until under the limit. `pinned`:
    /// made from the photo alone, read by every render whatever the sliders say (see the type's comment).
    public func store(_ key: NodeKey, size: PixelSize, _ buffer: PixelBuffer, pinned: Bool = false) {
        store(key, size: size, buffer, reused: false, pinned: pinned)
    }

    private func store(_ key: NodeKey, size: PixelSize, _ buffer: PixelBuffer, reused: Bool, pinned: Bool) {
        guard buffer.byteCount <= byteLimit else { return }
        state.withLock { s in
            let stamp = now(&s)
            let slot = Slot(key: key, size: size)
            var entries = s.slots[slot] ?? []
            // A new region that contains older ones replaces them (and inherits their protection).
            let replaced = entries.filter { buffer.region.contains($0.buffer.region) }
            entries.removeAll { buffer.region.contains($0.buffer.region) }
            for gone in replaced { s.forget(gone) }
            let entry = Entry(buffer: buffer, lastUse: stamp, reused: reused || replaced.contains(where: \.reused),
                              pinned: (pinned || replaced.contains(where: \.pinned)) && buffer.byteCount <= byteLimit / Self.pinnedPart)
            entries.append(entry)
            s.slots[slot] = entries
            s.count(entry)
            while s.bytes > byteLimit, Self.evictFirst(&s, pressure(s)) {}
        }
        budget?.enforce()
    }

    /// A buffer kept under `key` by `keep`, whatever its size (counted like any entry).
    public func kept(_ key: NodeKey) -> PixelBuffer? {
        state.withLock { s in
            let stamp = now(&s)
            guard let slot = s.slots.keys.first(where: { $0.key == key }), let entries = s.slots[slot], !entries.isEmpty else {
                return nil
            }
            Self.touch(&s, slot, 0, at: stamp)
            return entries[0].buffer
        }
    }

    /// Keeps a buffer that is not a node's render (statistics made from one, such as its sorted samples) under
    /// the same byte limit and budget as the renders, so nothing long-lived escapes the memory budget.
    /// Statistics are made to be asked for again: they are protected and pinned from the start.
    public func keep(_ key: NodeKey, _ buffer: PixelBuffer) {
        store(key, size: PixelSize(width: buffer.region.maxX, height: buffer.region.maxY), buffer, reused: true, pinned: true)
    }

    /// Whether a pointwise result (`key` at `size`) was asked for before; notes that it is now. A fused chain
    /// recomputes its pointwise stages on every render, so one that comes back (the unchanged side of a blend
    /// while a slider moves the mask) is better rendered once and kept: the second time it is asked for, it is.
    public func isRepeat(_ key: NodeKey, size: PixelSize) -> Bool {
        state.withLock { s in
            let slot = Slot(key: key, size: size)
            if s.asked.contains(slot) { return true }
            if s.asked.count >= Self.askedLimit { s.asked.removeAll() }
            s.asked.insert(slot)
            return false
        }
    }

    /// Bytes currently held.
    public var bytes: Int { state.withLock { $0.bytes } }
    /// Lookups that found / did not find an entry, since the cache was made.
    public var hits: Int { state.withLock { $0.hits } }
    public var misses: Int { state.withLock { $0.misses } }

    /// Forgets every entry of `key` (all sizes and regions).
    public func remove(_ key: NodeKey) {
        state.withLock { s in
            for slot in s.slots.keys where slot.key == key {
                for gone in s.slots[slot]! { s.forget(gone) }
                s.slots[slot] = nil
            }
        }
    }

    public func removeAll() {
        state.withLock { s in
            s.slots = [:]
            s.asked = []
            s.bytes = 0
            s.reusedBytes = 0
            s.pinnedBytes = 0
        }
    }
}

extension RenderCache.State {
    /// Adds an entry's bytes to the totals it counts in.
    mutating func count(_ entry: RenderCache.Entry) {
        let bytes = entry.buffer.byteCount
        self.bytes += bytes
        if entry.reused { reusedBytes += bytes }
        if entry.pinned { pinnedBytes += bytes }
    }

    /// Takes a removed entry's bytes off the totals it counted in.
    mutating func forget(_ entry: RenderCache.Entry) {
        let bytes = entry.buffer.byteCount
        self.bytes -= bytes
        if entry.reused { reusedBytes -= bytes }
        if entry.pinned { pinnedBytes -= bytes }
    }
}
