import Synchronization

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
    }

    /// Most bytes of samples kept.
    public let byteLimit: Int
    private let state = Mutex(State())

    public init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// A cached buffer covering `target.region` (cropped to it), or nil. Counts a hit or a miss.
    public func lookup(_ key: NodeKey, _ target: RenderTarget) -> PixelBuffer? {
        let found: PixelBuffer? = state.withLock { s in
            s.clock += 1
            let slot = Slot(key: key, size: target.size)
            guard var entries = s.slots[slot],
                  let index = entries.firstIndex(where: { $0.buffer.region.contains(target.region) })
            else {
                s.misses += 1
                return nil
            }
            entries[index].lastUse = s.clock
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
            s.clock += 1
            let slot = Slot(key: key, size: size)
            var entries = s.slots[slot] ?? []
            // A new region that contains older ones replaces them.
            let replaced = entries.filter { buffer.region.contains($0.buffer.region) }
            entries.removeAll { buffer.region.contains($0.buffer.region) }
            s.bytes -= replaced.reduce(0) { $0 + $1.buffer.byteCount }
            entries.append(Entry(buffer: buffer, lastUse: s.clock))
            s.slots[slot] = entries
            s.bytes += bytes
            while s.bytes > byteLimit {
                var oldest: (Slot, Int, UInt64)?
                for (slot, list) in s.slots {
                    for (i, e) in list.enumerated() where oldest == nil || e.lastUse < oldest!.2 {
                        oldest = (slot, i, e.lastUse)
                    }
                }
                guard let (victimSlot, index, _) = oldest else { break }
                var list = s.slots[victimSlot]!
                s.bytes -= list[index].buffer.byteCount
                list.remove(at: index)
                s.slots[victimSlot] = list.isEmpty ? nil : list
            }
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
            s.bytes = 0
        }
    }
}
