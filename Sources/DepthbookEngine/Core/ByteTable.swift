/// Work on the photo's bytes done once for the 256 values a byte can have, then looked up per sample: channelwise
/// pointwise stages over the bytes (`FusedPointwise`), and a formula's costly functions of a row that holds only
/// byte values (`FormulaKernels`). The function sees exactly the values the per-pixel run would (a byte times
/// `scale`, as byte rows are expanded), so the table holds the same bits.
enum ByteTable {
    /// A byte read as a float: byte · (1/255).
    static let scale: Float = 1.0 / 255.0

    /// 256 pixels of `channels` samples, pixel k all k · scale.
    static func identity(channels: Int) -> [Float] {
        (0..<(256 * channels)).map { Float($0 / channels) * scale }
    }

    /// `filter` applied to the 256 pixels of `values`.
    static func apply(_ filter: any PointwiseFilter, to values: [Float], channels: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: 256 * channels) { out, initialized in
            values.withUnsafeBufferPointer { v in
                filter.apply(inputs: [v.baseAddress!], inputChannels: [channels], output: out.baseAddress!,
                             outputChannels: channels, count: 256)
            }
            initialized = 256 * channels
        }
    }

    /// The byte whose value `v` would be (`v` clamped to 0…1 and rounded to a 255th).
    @inline(__always)
    static func byte(_ v: Float) -> Int {
        let c: Float = v > 0 ? (v < 1 ? v : 1) : 0
        return Int(c * 255 + 0.5)
    }

    /// Whether every sample is exactly a byte's value (byte · scale).
    static func allBytes(_ x: UnsafePointer<Float>, count: Int) -> Bool {
        // Rows that are not bytes (a reduced preview, a depth plane) nearly always show it at once.
        guard count > 0, Float(byte(x[0])) * scale == x[0] else { return false }
        var misses = 0
        for i in 0..<count { misses &+= Float(byte(x[i])) * scale == x[i] ? 0 : 1 }
        return misses == 0
    }

    /// Each of `count` samples, all byte values, replaced by its byte's entry of `table` (256 values).
    static func lookUp(_ x: UnsafePointer<Float>, count: Int, table: [Float], into out: UnsafeMutablePointer<Float>) {
        table.withUnsafeBufferPointer { t in
            for i in 0..<count { out[i] = t[byte(x[i])] }
        }
    }

    /// `count` pixels of `raster` from sample `start`, each sample replaced by its byte's entry for its channel.
    @inline(__always)
    static func lookUp(_ raster: Raster<UInt8>, from start: Int, count: Int, table: [Float], into out: UnsafeMutablePointer<Float>) {
        let c = raster.channels
        raster.samples.withUnsafeBufferPointer { src in
            table.withUnsafeBufferPointer { t in
                let s = src.baseAddress! + start, tb = t.baseAddress!
                if c == 3 {
                    for i in 0..<count {
                        let j = i &* 3
                        out[j] = tb[Int(s[j]) &* 3]
                        out[j &+ 1] = tb[Int(s[j &+ 1]) &* 3 &+ 1]
                        out[j &+ 2] = tb[Int(s[j &+ 2]) &* 3 &+ 2]
                    }
                } else {
                    for i in 0..<(count &* c) { out[i] = tb[Int(s[i]) &* c &+ i % c] }
                }
            }
        }
    }
}
