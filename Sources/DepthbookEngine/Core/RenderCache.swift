
/// Rendered node outputs kept between renders, bounded in bytes, evicting the least recently used.
///
/// Entries are keyed by (node key, frame size) and hold a region; a request is served by any entry of the
/// same key and size whose region contains the one asked for. Shared by every render of a session, so
/// moving one slider recomputes only the nodes whose keys changed.
public final class RenderCache: Sendable {
    struct Slot: Hashable {
        let key: NodeKey
        let size: PixelSize
    }

    struct Entry {
        let buffer: PixelBuffer
        var lastUse: UInt64
    }

    struct State {
        var slots: [Slot: [Entry]] = [:]
        var bytes = 0
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

    /// When the least recently used entry was last used (nil when empty).
    var oldestUse: UInt64? {
        state.withLock { s in s.slots.values.lazy.flatMap { $0 }.map(\.lastUse).min() }
    }

    /// Drops the least recently used entry; false when there is none.
    @discardableResult
    func evictOldest() -> Bool {
        state.withLock { s in Self.evictOldest(&s) }
    }

    private static func evictOldest(_ s: inout State) -> Bool {
        var oldest: (Slot, Int, UInt64)?
        for (slot, list) in s.slots {
            for (i, e) in list.enumerated() where oldest == nil || e.lastUse < oldest!.2 {
                oldest = (slot, i, e.lastUse)
            }
        }
        guard let (victimSlot, index, _) = oldest else { return false }
        var list = s.slots[victimSlot]!
        s.bytes -= list[index].buffer.byteCount
        list.remove(at: index)
        s.slots[victimSlot] = list.isEmpty ? nil : list
        return true
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
            entries[index].lastUse = stamp
            s.slots[slot] = entries
            s.hits += 1
            return entries[index].buffer
        }
        return found?.cropped(to: target.region)
    }

    /// Keeps `buffer` (rendered for `key` at `size`), then evicts old entries until under the limit.
    public func store(_ key: NodeKey, size: PixelSize, _ buffer: PixelBuffer) {
        let bytes = buffer.byteCount
        guard bytes <= byteLimit else { return }
        state.withLock { s in
            let stamp = now(&s)
            let slot = Slot(key: key, size: size)
            var entries = s.slots[slot] ?? []
            // A new region that contains older ones replaces them.
            let replaced = entries.filter { buffer.region.contains($0.buffer.region) }
            entries.removeAll { buffer.region.contains($0.buffer.region) }
            s.bytes -= replaced.reduce(0) { $0 + $1.buffer.byteCount }
            entries.append(Entry(buffer: buffer, lastUse: stamp))
            s.slots[slot] = entries
            s.bytes += bytes
            while s.bytes > byteLimit, Self.evictOldest(&s) {}
        }
        budget?.enforce()
    }

    /// A buffer kept under `key` by `keep`, whatever its size (counted like any entry).
    public func kept(_ key: NodeKey) -> PixelBuffer? {
        state.withLock { s in
            let stamp = now(&s)
            guard let slot = s.slots.keys.first(where: { $0.key == key }), var entries = s.slots[slot], !entries.isEmpty else {
                return nil
            }
            entries[0].lastUse = stamp
            s.slots[slot] = entries
            return entries[0].buffer
        }
    }

    /// Keeps a buffer that is not a node's render (statistics made from one, such as its sorted samples) under
    /// the same byte limit and budget as the renders, so nothing long-lived escapes the memory budget.
    public func keep(_ key: NodeKey, _ buffer: PixelBuffer) {
        store(key, size: PixelSize(width: buffer.region.maxX, height: buffer.region.maxY), buffer)
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
                s.bytes -= s.slots[slot]!.reduce(0) { $0 + $1.buffer.byteCount }
                s.slots[slot] = nil
            }
        }
    }

    public func removeAll() {
        state.withLock { s in
            s.slots = [:]
            s.asked = []
            s.bytes = 0
        }
    }
}
