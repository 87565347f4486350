import DepthbookEngine

/// Where the matted subject sits in a rendered frame: what Big Head and Marching scale and move.
struct SubjectBounds: Equatable {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    /// The point the subject stands on: the middle of the bottom edge of its box. Scaling about it keeps
    /// the subject grounded (a portrait cut off by the frame's bottom stays cut off there).
    var base: (x: Double, y: Double) { ((minX + maxX) / 2, maxY) }
    var isEmpty: Bool { maxX <= minX || maxY <= minY }

    /// The bounding box of matte samples above `threshold`, in frame pixel coordinates (pixel edges).
    static func of(_ matte: PixelBuffer, threshold: Float = 0.1) -> SubjectBounds? {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        matte.samples.withUnsafeBufferPointer { s in
            for y in 0..<matte.height {
                let row = y * matte.width
                for x in 0..<matte.width where s[row + x] > threshold {
                    minX = min(minX, x); maxX = max(maxX, x)
                    minY = min(minY, y); maxY = max(maxY, y)
                }
            }
        }
        guard minX <= maxX else { return nil }
        let ox = Double(matte.region.x), oy = Double(matte.region.y)
        return SubjectBounds(minX: ox + Double(minX), minY: oy + Double(minY),
                             maxX: ox + Double(maxX + 1), maxY: oy + Double(maxY + 1))
    }
}

/// Reads a buffer at fractional frame coordinates with bilinear weights (pixel centres at +0.5), clamping
/// to the buffer's region. Used by the warps here, where the read position depends on the output pixel.
struct BilinearReader {
    let buffer: PixelBuffer

    /// Writes `channels` samples at (x, y) (pixel-centre coordinates: x = 3.5 is the middle of column 3).
    @inline(__always)
    func read(x: Double, y: Double, into out: inout SIMD4<Float>) {
        let r = buffer.region, ch = buffer.channels
        let fx = min(max(x - 0.5, Double(r.x)), Double(r.maxX - 1))
        let fy = min(max(y - 0.5, Double(r.y)), Double(r.maxY - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, r.maxX - 1), y1 = min(y0 + 1, r.maxY - 1)
        let tx = Float(fx - Double(x0)), ty = Float(fy - Double(y0))
        let w = r.width
        let i00 = ((y0 - r.y) * w + (x0 - r.x)) * ch, i10 = ((y0 - r.y) * w + (x1 - r.x)) * ch
        let i01 = ((y1 - r.y) * w + (x0 - r.x)) * ch, i11 = ((y1 - r.y) * w + (x1 - r.x)) * ch
        buffer.samples.withUnsafeBufferPointer { s in
            for c in 0..<ch {
                let top = s[i00 + c] + (s[i10 + c] - s[i00 + c]) * tx
                let bottom = s[i01 + c] + (s[i11 + c] - s[i01 + c]) * tx
                out[c] = top + (bottom - top) * ty
            }
        }
    }

    /// One channel at (x, y); 0 outside the frame `frame` (a subject moved off the picture leaves nothing).
    @inline(__always)
    func value(x: Double, y: Double, frame: PixelRect) -> Float {
        if x < Double(frame.x) || y < Double(frame.y) || x > Double(frame.maxX) || y > Double(frame.maxY) { return 0 }
        var v = SIMD4<Float>(repeating: 0)
        read(x: x, y: y, into: &v)
        return v[0]
    }
}

/// The bounding box in frame pixels of where points of `rect` land under p ↦ anchor + (p − anchor)·factor + shift.
func mappedRect(_ rect: PixelRect, anchor: (x: Double, y: Double), factor: Double, shift: (x: Double, y: Double) = (0, 0),
                margin: Int, frame: PixelRect) -> PixelRect {
    let xs = [Double(rect.x), Double(rect.maxX)].map { anchor.x + ($0 - anchor.x) * factor + shift.x }
    let ys = [Double(rect.y), Double(rect.maxY)].map { anchor.y + ($0 - anchor.y) * factor + shift.y }
    guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(), x0.isFinite, x1.isFinite,
          y0.isFinite, y1.isFinite else { return frame }
    let r = PixelRect(x: Int(x0.rounded(.down)) - margin, y: Int(y0.rounded(.down)) - margin,
                      width: Int(x1.rounded(.up) - x0.rounded(.down)) + 2 * margin,
                      height: Int(y1.rounded(.up) - y0.rounded(.down)) + 2 * margin)
    let clipped = r.intersection(frame)
    return clipped.isEmpty ? PixelRect(x: frame.x, y: frame.y, width: 1, height: 1) : clipped
}
