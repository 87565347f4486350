/// Rec.601 luma, the one grey every part of Depthbook uses (what OpenCV's GRAY and Pillow's 'L' use):
/// 0.299 R + 0.587 G + 0.114 B.
public enum Luma {
    /// The weights of R, G and B.
    public static let weights: [Double] = [0.299, 0.587, 0.114]

    @inline(__always)
    public static func rec601(_ r: Float, _ g: Float, _ b: Float) -> Float { 0.299 * r + 0.587 * g + 0.114 * b }

    public static func rec601(_ r: Double, _ g: Double, _ b: Double) -> Double { 0.299 * r + 0.587 * g + 0.114 * b }

    /// The weights in thousandths, for integer sums over 8-bit samples.
    public static let thousandths: (r: Int, g: Int, b: Int) = (299, 587, 114)
}
