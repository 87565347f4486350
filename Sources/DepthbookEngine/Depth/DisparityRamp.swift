/// The 2017 background-effects blend mask: normalised disparity mapped through a linear ramp and clamped,
/// so disparities at or above `threshold` are foreground (1), those below `threshold − width` background (0),
/// and the ones between blend. This is CIColorMatrix (slope 1/width, bias 1 − threshold/width) followed by
/// CIColorClamp, on the normalised disparity n = (d − low)/(high − low).
///
/// Holes (NaN) are background.
public struct DisparityRamp: PointwiseFilter {
    public static let info = FilterInfo(
        name: "disparityRamp", coreImageName: "CIColorMatrix + CIColorClamp",
        summary: "Blend mask: 1 at or above the tapped threshold, a linear ramp of the given width below it, 0 beyond.",
        parameters: [
            ParameterInfo("threshold", range: 0...1,
                          doc: "Normalised disparity where the foreground starts (what a tap picks)."),
            ParameterInfo("width", range: 0...1,
                          doc: "Normalised disparity span of the blend below the threshold (what a pinch sets); 0 is a hard edge."),
            ParameterInfo("low", range: -1e9...1e9, doc: "Disparity normalised to 0."),
            ParameterInfo("high", range: -1e9...1e9, doc: "Disparity normalised to 1."),
        ])

    public let threshold: Float
    public let width: Float
    public let low: Float
    public let high: Float

    public init(threshold: Double, width: Double, low: Double = 0, high: Double = 1) throws {
        try Self.info.validate("threshold", threshold)
        try Self.info.validate("width", width)
        try Self.info.validate("low", low)
        try Self.info.validate("high", high)
        self.threshold = Float(threshold)
        self.width = Float(width)
        self.low = Float(low)
        self.high = Float(high)
    }

    public var parameterKey: String { "t=\(threshold),w=\(width),lo=\(low),hi=\(high)" }

    /// The ramp as the colour matrix the talk builds: mask = slope · n + bias, then clamped.
    public var slopeAndBias: (slope: Float, bias: Float) {
        width > 0 ? (1 / width, 1 - threshold / width) : (.infinity, 0)
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    /// The mask value for one normalised disparity.
    @inline(__always)
    public func mask(normalised n: Float) -> Float {
        if n.isNaN { return 0 }
        if width <= 0 { return n >= threshold ? 1 : 0 }
        let (slope, bias) = slopeAndBias
        return Swift.min(1, Swift.max(0, slope * n + bias))
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let d = inputs[0]
        let span = high - low
        let inv: Float = span > 0 ? 1 / span : 0
        for i in 0..<count {
            let v = d[i]
            output[i] = v.isNaN ? 0 : mask(normalised: (v - low) * inv)
        }
    }
}

/// What a tap on the picture reads from a plane: the minimum and maximum of the valid samples in a small
/// square around the point, with the square clamped to the plane (Core Image: CIAreaMinMaxRed over the
/// tapped rect of a clamped disparity image).
public enum AreaMinMax {
    /// Min and max of the valid samples of `plane` (one channel) within `radius` pixels of the normalised
    /// point (x, y ∈ 0...1), or nil when the area holds only holes.
    public static func around(_ plane: PixelBuffer, x: Double, y: Double, radius: Int) -> ClosedRange<Float>? {
        let r = plane.region
        guard r.width > 0, r.height > 0, plane.channels == 1, x.isFinite, y.isFinite else { return nil }
        let px = Int((min(1, max(0, x)) * Double(r.width)).rounded(.down)), py = Int((min(1, max(0, y)) * Double(r.height)).rounded(.down))
        let cx = min(r.width - 1, px), cy = min(r.height - 1, py)
        let reach = max(0, radius)
        var lo = Float.infinity, hi = -Float.infinity
        for yy in max(0, cy - reach)...min(r.height - 1, cy + reach) {
            for xx in max(0, cx - reach)...min(r.width - 1, cx + reach) {
                let v = plane.samples[yy * r.width + xx]
                if v.isNaN { continue }
                lo = min(lo, v)
                hi = max(hi, v)
            }
        }
        return lo <= hi ? lo...hi : nil
    }

    /// Min and max of the valid samples inside a normalised rectangle (x, y, width, height ∈ 0...1).
    public static func inside(_ plane: PixelBuffer, x: Double, y: Double, width: Double, height: Double) -> ClosedRange<Float>? {
        let r = plane.region
        guard r.width > 0, r.height > 0, plane.channels == 1, x.isFinite, y.isFinite, width.isFinite, height.isFinite else { return nil }
        let x0 = max(0, min(r.width - 1, Int((x * Double(r.width)).rounded(.down))))
        let y0 = max(0, min(r.height - 1, Int((y * Double(r.height)).rounded(.down))))
        let x1 = max(x0, min(r.width - 1, Int(((x + width) * Double(r.width)).rounded(.up)) - 1))
        let y1 = max(y0, min(r.height - 1, Int(((y + height) * Double(r.height)).rounded(.up)) - 1))
        var lo = Float.infinity, hi = -Float.infinity
        for yy in y0...y1 {
            for xx in x0...x1 {
                let v = plane.samples[yy * r.width + xx]
                if v.isNaN { continue }
                lo = min(lo, v)
                hi = max(hi, v)
            }
        }
        return lo <= hi ? lo...hi : nil
    }
}
