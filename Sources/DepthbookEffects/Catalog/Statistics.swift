import DepthbookEngine

/// Exact statistics over plane samples, NaN holes excluded: what thresholds and histograms are cut from.
enum Statistics {
    /// The `p`-th percentile (0...100) by linear interpolation between order statistics (numpy's default),
    /// or nil when there is no valid sample.
    static func percentile(_ samples: [Float], _ p: Double) -> Double? {
        percentile(sorted: samples.filter { !$0.isNaN }.sorted(), p)
    }

    /// The same over samples already freed of NaN and sorted ascending.
    static func percentile(sorted valid: [Float], _ p: Double) -> Double? {
        guard !valid.isEmpty, !p.isNaN else { return nil }
        let rank = min(max(p, 0), 100) / 100 * Double(valid.count - 1)
        let lo = Int(rank.rounded(.down)), hi = min(lo + 1, valid.count - 1)
        let t = rank - Double(lo)
        return Double(valid[lo]) + (Double(valid[hi]) - Double(valid[lo])) * t
    }

    /// Counts of valid samples in `bins` equal bins over min...max (the max falls in the last bin), and the holes.
    static func histogram(_ samples: [Float], bins: Int) -> (bins: [Int], min: Double, max: Double, holes: Int) {
        var lo = Float.infinity, hi = -Float.infinity, holes = 0
        for v in samples {
            if v.isNaN { holes += 1; continue }
            lo = min(lo, v); hi = max(hi, v)
        }
        var counts = [Int](repeating: 0, count: bins)
        guard lo <= hi else { return (counts, 0, 0, holes) }
        let span = Double(hi) - Double(lo)
        for v in samples where !v.isNaN {
            let i = span > 0 ? Int((Double(v) - Double(lo)) / span * Double(bins)) : 0
            counts[min(bins - 1, max(0, i))] += 1
        }
        return (counts, Double(lo), Double(hi), holes)
    }
}

/// Statistics kept per renderer (per photo), so moving a percentile slider costs a lookup, not a render and
/// a sort. The native renders and sorted samples live in the renderer's own render cache, which the server's
/// memory budget bounds with everything else it keeps; only the cuts (one number each) are kept here.
final class StatisticsCache: Sendable {
    private let store: RenderCache
    private let cuts = Locked([CutKey: Double?]())

    /// `store` is the renderer's cache; alone (a test, a one-off loop) a small cache of its own.
    init(store: RenderCache = RenderCache(byteLimit: 64 << 20)) {
        self.store = store
    }

    private struct CutKey: Hashable {
        let plane: NodeKey
        let face: Double?
    }

    /// A cut found from `plane`'s samples for a face at disparity `face` (nil: no face), made by `find` once.
    func cut(_ plane: NodeKey, face: Double?, find: () -> Double?) -> Double? {
        let key = CutKey(plane: plane, face: face)
        if let known = cuts.withLock({ $0[key] }) { return known }
        let found = find()
        cuts.withLock { c in
            if c.count > 16 { c.removeAll() }
            c[key] = .some(found)
        }
        return found
    }

    /// A buffer derived from the photo (a subject region), made by `make` once and kept in the render cache.
    func kept(_ key: NodeKey, make: () throws -> PixelBuffer) rethrows -> PixelBuffer {
        if let hit = store.kept(key) { return hit }
        let made = try make()
        store.keep(key, made)
        return made
    }

    /// The valid samples of `buffer` (the render of node `key`) in ascending order.
    func sortedValid(_ key: NodeKey, _ buffer: PixelBuffer) -> [Float] {
        let sortedKey = NodeKey("sortedValid", inputs: [key])
        if let hit = store.kept(sortedKey) { return hit.samples }
        let values = buffer.samples.filter { !$0.isNaN }.sorted()
        if !values.isEmpty {
            store.keep(sortedKey, PixelBuffer(region: PixelRect(x: 0, y: 0, width: values.count, height: 1), channels: 1, samples: values))
        }
        return values
    }
}
