import DepthbookEngine

/// A palette of at most 256 colours for a whole animation, chosen by median cut, and the mapping of RGB
/// pixels to its entries.
///
/// One global palette (not one per frame) keeps colours from flickering between frames of a loop. Median
/// cut: start with one box holding every sampled colour, repeatedly split the box with the widest channel
/// range at the median of that channel, and take each box's mean as a palette entry.
struct GIFPalette {
    /// RGB triples, `count` × 3.
    private(set) var colors: [UInt8]
    var count: Int { colors.count / 3 }
    /// Nearest palette entry per 15-bit colour (5 bits a channel), filled lazily; −1 = not looked up yet.
    private var cache = [Int16](repeating: -1, count: 1 << 15)

    /// A palette of up to `size` colours from (a sample of) the pixels of `frames`.
    init(frames: [RGBImage8], size: Int = 256) {
        let total = frames.reduce(0) { $0 + $1.pixelCount }
        let stride = max(1, total / 120_000)
        var samples: [SIMD3<UInt8>] = []
        samples.reserveCapacity(total / stride + frames.count)
        for frame in frames {
            var i = 0
            while i < frame.pixelCount {
                samples.append(SIMD3(frame.samples[i * 3], frame.samples[i * 3 + 1], frame.samples[i * 3 + 2]))
                i += stride
            }
        }
        colors = GIFPalette.medianCut(samples, size: max(2, min(256, size)))
    }

    static func medianCut(_ samples: [SIMD3<UInt8>], size: Int) -> [UInt8] {
        guard !samples.isEmpty else { return [0, 0, 0, 255, 255, 255] }
        var boxes: [ArraySlice<SIMD3<UInt8>>] = [samples[...]]
        func widest(_ box: ArraySlice<SIMD3<UInt8>>) -> (channel: Int, range: Int) {
            var lo = SIMD3<UInt8>(repeating: 255), hi = SIMD3<UInt8>(repeating: 0)
            for c in box { lo = pointwiseMin(lo, c); hi = pointwiseMax(hi, c) }
            let r = (0..<3).map { Int(hi[$0]) - Int(lo[$0]) }
            let channel = r[0] >= r[1] && r[0] >= r[2] ? 0 : (r[1] >= r[2] ? 1 : 2)
            return (channel, r[channel])
        }
        while boxes.count < size {
            // Split the box with the largest (range × population), so big, varied regions get more entries.
            var best = -1, bestScore = 0, bestChannel = 0
            for (i, box) in boxes.enumerated() where box.count > 1 {
                let w = widest(box)
                let score = w.range * box.count
                if w.range > 0, score > bestScore { best = i; bestScore = score; bestChannel = w.channel }
            }
            if best < 0 { break }
            var box = Array(boxes[best])
            box.sort { $0[bestChannel] < $1[bestChannel] }
            let mid = box.count / 2
            boxes[best] = box[..<mid]
            boxes.append(box[mid...])
            // Keep slices valid after `box` goes out of scope: they own their storage (copy-on-write arrays).
        }
        var colors: [UInt8] = []
        for box in boxes {
            var sum = SIMD3<Int>(repeating: 0)
            for c in box { sum &+= SIMD3<Int>(Int(c[0]), Int(c[1]), Int(c[2])) }
            let n = max(1, box.count)
            colors += [UInt8((sum[0] + n / 2) / n), UInt8((sum[1] + n / 2) / n), UInt8((sum[2] + n / 2) / n)]
        }
        return colors
    }

    /// The palette entry nearest (in RGB distance) to the colour, via the 15-bit cache.
    mutating func index(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let key = Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
        if cache[key] >= 0 { return UInt8(cache[key]) }
        // Look up the centre of the 15-bit cell, so every colour in the cell maps the same way.
        let cr = Int(r & 0xF8) + 4, cg = Int(g & 0xF8) + 4, cb = Int(b & 0xF8) + 4
        var best = 0, bestDistance = Int.max
        for i in 0..<count {
            let dr = Int(colors[i * 3]) - cr, dg = Int(colors[i * 3 + 1]) - cg, db = Int(colors[i * 3 + 2]) - cb
            let d = dr * dr + dg * dg + db * db
            if d < bestDistance { bestDistance = d; best = i }
        }
        cache[key] = Int16(best)
        return UInt8(best)
    }
}
