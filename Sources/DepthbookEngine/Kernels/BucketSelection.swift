/// Exact order statistics of a plane's valid samples in a few linear passes, without sorting or copying the
/// plane: count the samples into equal-width value buckets, find the bucket that holds the wanted rank, then
/// select inside that bucket only (a few dozen values for a depth map).
///
/// Exact because the bucket index ⌊(v − lo) · scale⌋, clamped, never decreases as v grows (a float
/// subtraction or multiplication by a positive constant is monotonic under round-to-nearest): every sample
/// of a lower bucket is ≤ every sample of a higher one.
struct BucketSelection {
    let samples: UnsafeBufferPointer<Float>
    let lo: Float
    let hi: Float
    /// Number of valid (non-NaN) samples.
    let count: Int

    /// Nil when there are no valid samples.
    init?(samples: UnsafeBufferPointer<Float>) {
        var lo = Float.infinity, hi = -Float.infinity, holes = 0
        // NaN fails every comparison, so it never becomes lo or hi; written branch-free so the loop vectorises.
        for v in samples {
            lo = v < lo ? v : lo
            hi = v > hi ? v : hi
            holes &+= v != v ? 1 : 0
        }
        guard holes < samples.count else { return nil }
        self.samples = samples
        self.lo = lo
        self.hi = hi
        count = samples.count - holes
    }

    /// numpy's "linear" percentile: rank p/100 · (n − 1), interpolated between the two order statistics around it.
    func percentile(_ p: Double) -> Double {
        let rank = min(max(p, 0), 100) / 100 * Double(count - 1)
        let k = Int(rank.rounded(.down))
        let fraction = rank - Double(k)
        let needsNext = fraction > 0 && k + 1 < count
        let (low, next) = orderStatistics(k, withNext: needsNext)
        guard needsNext, let next else { return Double(low) }
        return Double(low) + fraction * (Double(next) - Double(low))
    }

    /// The k-th smallest valid sample (from 0) and, when asked, the (k+1)-th.
    func orderStatistics(_ k: Int, withNext: Bool) -> (Float, Float?) {
        let buckets = min(65_536, max(64, count / 8))
        let scale = Float(buckets) / (hi - lo)
        guard lo < hi, scale.isFinite, scale > 0 else {
            if lo == hi { return (lo, withNext ? lo : nil) }
            return Self.selectAll(samples, k, withNext: withNext)
        }
        let last = buckets - 1
        @inline(__always) func bucket(_ v: Float) -> Int {
            let t = (v - lo) * scale
            return t < Float(last) ? Int(t) : last
        }
        var counts = [Int](repeating: 0, count: buckets)
        counts.withUnsafeMutableBufferPointer { c in
            for v in samples where v == v { c[bucket(v)] &+= 1 }
        }
        // The bucket holding rank k, and the first non-empty one after it (for rank k + 1).
        var below = 0, target = 0
        while below + counts[target] <= k { below += counts[target]; target += 1 }
        let rankInBucket = k - below
        var nextBucket = target
        if withNext && rankInBucket + 1 >= counts[target] {
            nextBucket = target + 1
            while counts[nextBucket] == 0 { nextBucket += 1 }
        }
        var candidates = [Float]()
        candidates.reserveCapacity(counts[target])
        var nextMin = Float.infinity
        for v in samples where v == v {
            let b = bucket(v)
            if b == target { candidates.append(v) } else if b == nextBucket { nextMin = v < nextMin ? v : nextMin }
        }
        let (low, next) = candidates.withUnsafeMutableBufferPointer {
            Self.select($0, rankInBucket, withNext: withNext && nextBucket == target)
        }
        return (low, nextBucket == target ? next : nextMin)
    }

    /// Selection over a copy of every valid sample (ranges too wide or too narrow to bucket in floats).
    static func selectAll(_ samples: UnsafeBufferPointer<Float>, _ k: Int, withNext: Bool) -> (Float, Float?) {
        var values = samples.filter { !$0.isNaN }
        return values.withUnsafeMutableBufferPointer { select($0, k, withNext: withNext) }
    }

    /// The k-th smallest of `values` (rearranged) and, when asked, the (k+1)-th: after selection everything
    /// right of k is ≥ it, so the next order statistic is their minimum.
    static func select(_ values: UnsafeMutableBufferPointer<Float>, _ k: Int, withNext: Bool) -> (Float, Float?) {
        let low = Statistics.select(values, k)
        guard withNext else { return (low, nil) }
        var next = Float.infinity
        for i in (k + 1)..<values.count { next = min(next, values[i]) }
        return (low, next)
    }
}
