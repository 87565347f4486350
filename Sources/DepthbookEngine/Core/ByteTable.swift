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

    /// The byte `v` is nearest to, as a float (`v` clamped to 0…1, times 255, rounded half up). Written without a
    /// checked float-to-integer conversion, as `quantize` is, so the loops over it vectorise.
    @inline(__always)
    static func nearestByte(_ v: Float) -> Float {
        let magic: Float = 8_388_608
        let c: Float = v > 0 ? (v < 1 ? v : 1) : 0
        let s = c * 255 + 0.5
        let r = (s + magic) - magic
        return r > s ? r - 1 : r
    }

    /// Each of `count` samples replaced by its byte's entry of `table` (256 values), when every sample is exactly
    /// a byte's value (byte · scale; compared bit for bit, so −0 and NaN are not); false otherwise, `out` then
    /// holding nothing of use.
    static func lookUp(_ x: UnsafePointer<Float>, count: Int, table: [Float], into out: UnsafeMutablePointer<Float>) -> Bool {
        // Rows that are not bytes (a reduced preview, a depth plane) nearly always show it at once.
        guard count > 0, (nearestByte(x[0]) * scale).bitPattern == x[0].bitPattern else { return false }
        let magic: Float = 8_388_608
        var misses: UInt32 = 0
        table.withUnsafeBufferPointer { t in
            let base = t.baseAddress!
            for i in 0..<count {
                let b = nearestByte(x[i])
                misses |= (b * scale).bitPattern ^ x[i].bitPattern
                out[i] = base[Int((b + magic).bitPattern & 0xff)]
            }
        }
        return misses == 0
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
