/// A disparity plane for a photo taken without depth, built from the learned subject matte and two cues every
/// photo of a person shares; no camera measured any of it, and `DepthData.estimate` says so.
///
/// - The subject (the matte, with its soft alpha) is the near layer, at disparity 1: a person or pet being
///   photographed stands in front of what is behind them.
/// - Behind it, the ground: a level camera sees a flat floor below the horizon, where disparity grows linearly
///   with the row (1/Z = (y − horizon) / (f · camera height)). The horizon is put at mid-frame, so the image's
///   lower half rises from the far level to `groundNear` at the bottom row; the upper half stays at `far`.
/// - A soft falloff behind the subject: what surrounds a subject is mostly close to it (the chair, the bed,
///   the wall leant on), so the background is raised by the matte blurred wide, up to `falloff` next to it.
///
/// The values are relative (unitless): the background spans `far`...`far + groundNear + falloff`, always below
/// the subject, so a cut between the two classes runs along the matte's edge.
public enum EstimatedDisparity {
    /// The far background's disparity (the upper half of the frame, away from the subject).
    public static let far: Float = 0.1
    /// How much the ground adds at the bottom row.
    public static let groundNear: Float = 0.35
    /// How much the background next to the subject is raised.
    public static let falloff: Float = 0.25
    /// The subject's own disparity.
    public static let subject: Float = 1
    /// Where the horizon lies, as a fraction of the height from the top.
    public static let horizon = 0.5
    /// The falloff's reach: the blur's σ as a fraction of the plane's width.
    public static let falloffReach = 0.08
    /// The estimated disparity at the matte's resolution (covering the same frame), nil when the matte holds no
    /// one the network is sure of (`PersonMatteTrust`).
    public static func plane(fromMatte matte: FloatPlane) -> FloatPlane? {
        let w = matte.width, h = matte.height
        guard w > 1, h > 1, matte.channels == 1 else { return nil }
        guard PersonMatteTrust.holdsSomeone(matte) else { return nil }
        let alpha = matte.samples.map { $0.isNaN ? 0 : min(1, max(0, $0)) }
        let near = blurred(alpha, width: w, height: h, sigma: falloffReach * Double(w))
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let row = (Double(y) + 0.5) / Double(h)
            let ground = row > horizon ? groundNear * Float((row - horizon) / (1 - horizon)) : 0
            for x in 0..<w {
                let i = y * w + x
                let background = far + ground + falloff * near[i]
                out[i] = alpha[i] * subject + (1 - alpha[i]) * background
            }
        }
        return FloatPlane(width: w, height: h, channels: 1, samples: out)
    }

    /// The photo's estimated depth, relative disparity marked as estimated from the person matte; nil when the
    /// matte holds no one.
    public static func depth(fromMatte matte: FloatPlane) -> DepthData? {
        guard let map = plane(fromMatte: matte) else { return nil }
        var depth = DepthData(kind: .disparity, map: map, accuracy: .relative, isFiltered: true)
        depth.estimate = .personMatte
        return depth
    }

    /// Three box blurs of the same radius, rows then columns, edges clamped: a Gaussian of about `sigma` to
    /// within a few per cent, plenty for a cue this coarse.
    static func blurred(_ plane: [Float], width w: Int, height h: Int, sigma: Double) -> [Float] {
        // Three passes of width 2r + 1 have the variance 3 · ((2r + 1)² − 1) / 12 = r (r + 1).
        let r = max(1, Int((sigma * sigma + 0.25).squareRoot() - 0.5))
        var data = plane
        for _ in 0..<3 {
            data = boxPass(data, count: h, length: w, stride: 1, step: w, radius: r)
            data = boxPass(data, count: w, length: h, stride: w, step: 1, radius: r)
        }
        return data
    }

    /// A running mean along `count` lines of `length` samples (`stride` apart, lines `step` apart).
    private static func boxPass(_ data: [Float], count: Int, length: Int, stride: Int, step: Int, radius r: Int) -> [Float] {
        var out = data
        let scale = 1 / Float(2 * r + 1)
        for line in 0..<count {
            let base = line * step
            func at(_ k: Int) -> Float { data[base + min(length - 1, max(0, k)) * stride] }
            var sum: Float = 0
            for k in -r...r { sum += at(k) }
            for k in 0..<length {
                out[base + k * stride] = sum * scale
                sum += at(k + r + 1) - at(k - r)
            }
        }
        return out
    }
}
