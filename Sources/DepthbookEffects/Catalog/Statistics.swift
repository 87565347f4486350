import DepthbookEngine
import Synchronization

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

/// Native-resolution renders of nodes that statistics were taken from, and their sorted valid samples, kept
/// per renderer (per photo): moving a percentile slider then costs a lookup, not a render and a sort.
final class StatisticsCache: Sendable {
    private let entries = Mutex([NodeKey: PixelBuffer]())
    private let sorted = Mutex([NodeKey: [Float]]())
    private let cuts = Mutex([CutKey: Double?]())

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

    func buffer(_ key: NodeKey) -> PixelBuffer? { entries.withLock { $0[key] } }

    func store(_ key: NodeKey, _ buffer: PixelBuffer) {
        entries.withLock { e in
            // A handful of statistics sources per notebook; forget them all rather than grow without bound.
            if e.count > 64 { e.removeAll() }
            e[key] = buffer
        }
    }

    /// The valid samples of `buffer` (cached under `key`) in ascending order.
    func sortedValid(_ key: NodeKey, _ buffer: PixelBuffer) -> [Float] {
        if let hit = sorted.withLock({ $0[key] }) { return hit }
        let values = buffer.samples.filter { !$0.isNaN }.sorted()
        sorted.withLock { s in
            if s.count > 16 { s.removeAll() }
            s[key] = values
        }
        return values
    }
}
