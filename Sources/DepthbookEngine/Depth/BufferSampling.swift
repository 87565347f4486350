/// Sampling helpers the depth operators share: continuous frame coordinates put pixel (x, y)'s centre at
/// (x + 0.5, y + 0.5), and reads outside a buffer clamp to its edge (clamp-to-extent).
extension PixelBuffer {
    /// Bilinear sample of every channel at continuous frame position (fx, fy), written to `out[0..<channels]`.
    @inline(__always)
    func sampleBilinear(_ fx: Float, _ fy: Float, into out: UnsafeMutablePointer<Float>) {
        let r = region
        let gx = fx - 0.5 - Float(r.x), gy = fy - 0.5 - Float(r.y)
        let maxX = r.width - 1, maxY = r.height - 1
        let x0f = gx.rounded(.down), y0f = gy.rounded(.down)
        let tx = gx - x0f, ty = gy - y0f
        let x0 = Swift.min(maxX, Swift.max(0, Int(x0f))), x1 = Swift.min(maxX, Swift.max(0, Int(x0f) + 1))
        let y0 = Swift.min(maxY, Swift.max(0, Int(y0f))), y1 = Swift.min(maxY, Swift.max(0, Int(y0f) + 1))
        let ch = channels, w = r.width
        samples.withUnsafeBufferPointer { s in
            let a = (y0 * w + x0) * ch, b = (y0 * w + x1) * ch, c = (y1 * w + x0) * ch, d = (y1 * w + x1) * ch
            for k in 0..<ch {
                let top = s[a + k] + (s[b + k] - s[a + k]) * tx
                let bottom = s[c + k] + (s[d + k] - s[c + k]) * tx
                out[k] = top + (bottom - top) * ty
            }
        }
    }
}

/// Depth-plane helpers: holes filled so geometry built from the plane never has gaps.
enum DepthPlaneFill {
    /// The samples with NaN holes (and non-positive values when `positive`) replaced by `fill`.
    static func filled(_ samples: [Float], with fill: Float, positive: Bool) -> [Float] {
        samples.map { v in (v.isNaN || (positive && v <= 0)) ? fill : v }
    }

    /// The largest valid sample (the farthest depth), or nil when every sample is a hole.
    static func largestValid(_ samples: [Float], positive: Bool) -> Float? {
        var best: Float?
        for v in samples where !v.isNaN && (!positive || v > 0) { best = Swift.max(best ?? v, v) }
        return best
    }

    /// The smallest valid sample (not NaN, and above 0 when `positive`), or nil when there is none.
    static func smallestValid(_ samples: [Float], positive: Bool) -> Float? {
        var best: Float?
        for v in samples where !v.isNaN && (!positive || v > 0) { best = Swift.min(best ?? v, v) }
        return best
    }
}
