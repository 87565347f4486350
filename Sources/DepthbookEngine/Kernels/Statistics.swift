/// Statistics over a plane's valid (non-NaN) samples: the maths behind histogram views, percentile
/// thresholds and normalisation. Core Image: CIAreaHistogram, CIAreaMinMax, CIAreaAverage.
public enum Statistics {
    /// Counts of valid samples in `bins` equal bins over `range` (values outside it go to the end bins),
    /// plus the number of holes.
    public struct Histogram: Sendable, Equatable {
        public var counts: [Int]
        public var range: ClosedRange<Float>
        public var holes: Int
    }

    /// Histogram of the valid samples of channel `channel` (of `channels` interleaved).
    /// `range` defaults to the samples' own min...max; bin i covers [lo + i·w, lo + (i+1)·w), the last bin
    /// includes hi (numpy's convention, including widening an empty range to lo − 0.5...hi + 0.5).
    public static func histogram(_ samples: [Float], channels: Int = 1, channel: Int = 0, bins: Int,
                                 range: ClosedRange<Float>? = nil) -> Histogram {
        let bins = max(1, bins)
        var holes = 0
        let span = range ?? minMax(samples, channels: channels, channel: channel) ?? 0...0
        var counts = [Int](repeating: 0, count: bins)
        var lo = Double(span.lowerBound), width = Double(span.upperBound) - lo
        if width == 0 {
            lo -= 0.5
            width = 1
        }
        var i = channel
        while i < samples.count {
            let v = samples[i]
            i += channels
            if v.isNaN { holes += 1; continue }
            var b = width > 0 ? Int(((Double(v) - lo) / width * Double(bins)).rounded(.down)) : 0
            b = min(bins - 1, max(0, b))
            counts[b] += 1
        }
        return Histogram(counts: counts, range: span, holes: holes)
    }

    /// Min and max of the valid samples, or nil when there are none.
    public static func minMax(_ samples: [Float], channels: Int = 1, channel: Int = 0) -> ClosedRange<Float>? {
        var lo = Float.infinity, hi = -Float.infinity
        var i = channel
        while i < samples.count {
            let v = samples[i]
            if !v.isNaN {
                lo = min(lo, v)
                hi = max(hi, v)
            }
            i += channels
        }
        return lo <= hi ? lo...hi : nil
    }

    /// Mean of the valid samples (summed in Double, in index order), or nil when there are none.
    public static func mean(_ samples: [Float], channels: Int = 1, channel: Int = 0) -> Double? {
        var sum = 0.0, n = 0
        var i = channel
        while i < samples.count {
            let v = samples[i]
            if !v.isNaN {
                sum += Double(v)
                n += 1
            }
            i += channels
        }
        return n > 0 ? sum / Double(n) : nil
    }

    /// The `p`-th percentile (0...100) of the valid samples, linearly interpolated between order statistics
    /// (numpy's default "linear" method): rank p/100 · (n − 1). Nil when there are no valid samples.
    /// Runs in linear time: bucket selection (`BucketSelection`), then a selection inside one bucket.
    public static func percentile(_ samples: [Float], _ p: Double) -> Double? {
        samples.withUnsafeBufferPointer { BucketSelection(samples: $0)?.percentile(p) }
    }

    /// Rearranges `a` so a[k] is the k-th smallest, smaller values left and larger right (Hoare quickselect
    /// with median-of-three pivots); returns a[k].
    static func select(_ a: UnsafeMutableBufferPointer<Float>, _ k: Int) -> Float {
        var lo = 0, hi = a.count - 1
        while hi > lo {
            let mid = lo + (hi - lo) / 2
            if a[mid] < a[lo] { a.swapAt(mid, lo) }
            if a[hi] < a[lo] { a.swapAt(hi, lo) }
            if a[hi] < a[mid] { a.swapAt(hi, mid) }
            let pivot = a[mid]
            var i = lo, j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return a[k] }
        }
        return a[k]
    }
}
