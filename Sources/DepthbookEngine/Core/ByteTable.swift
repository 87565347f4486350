/// Channelwise pointwise stages over the photo's bytes, run on the 256 values a byte can have: a fused chain
/// looks each sample's result up instead of computing it per pixel (`FusedPointwise`). The stage sees exactly
/// the values the chain would give it (a byte times `scale`, as byte rows are expanded), so the table holds
/// the same bits the per-pixel run would.
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
