/// Copies `count` pixels of one input row, starting at frame column `startX`, into `dst` with columns outside
/// `frame` replaced by the nearest edge pixel (clamp-to-extent).
///
/// The inside of the frame is one contiguous copy and only the overhang is filled pixel by pixel, instead of a
/// clamped index per sample: the horizontal passes of blurs and morphology spent most of their time in that
/// per-sample clamp. The result is the same values, so output does not change.
///
/// - Parameters:
///   - row: the input row's first pixel, which sits at frame column `rowX`; it must hold every column of
///     `startX ..< startX + count` that lies inside `frame`.
///   - channels: interleaved samples per pixel; all of them are copied.
@inline(__always)
func copyClampedRow(_ row: UnsafePointer<Float>, rowX: Int, channels ch: Int, startX: Int, count: Int,
                    frame: PixelRect, into dst: UnsafeMutablePointer<Float>) {
    if count <= 0 { return }
    let left = min(count, max(0, frame.x - startX))
    let insideEnd = max(left, min(count, frame.maxX - startX))
    if left > 0 {
        let edge = row + (frame.x - rowX) * ch
        for i in 0..<left { for c in 0..<ch { dst[i * ch + c] = edge[c] } }
    }
    if insideEnd > left {
        (dst + left * ch).update(from: row + (startX + left - rowX) * ch, count: (insideEnd - left) * ch)
    }
    if count > insideEnd {
        let edge = row + (frame.maxX - 1 - rowX) * ch
        for i in insideEnd..<count { for c in 0..<ch { dst[i * ch + c] = edge[c] } }
    }
}
