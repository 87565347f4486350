import func Foundation.powf

/// The sRGB transfer function (IEC 61966-2-1), per channel: encoded → linear light or back.
/// Core Image: CISRGBToneCurveToLinear / CILinearToSRGBToneCurve. Negative values keep their sign.
public struct SRGBTransfer: PointwiseFilter, OneInputFilter {
    public static let info = FilterInfo(
        name: "srgbTransfer", coreImageName: "CISRGBToneCurveToLinear / CILinearToSRGBToneCurve",
        summary: "Convert sRGB-encoded values to linear light (toLinear) or linear light to sRGB encoding.")

    public let toLinear: Bool

    public init(toLinear: Bool) {
        self.toLinear = toLinear
    }

    public var parameterKey: String { toLinear ? "toLinear" : "toSRGB" }

    @inline(__always)
    static func decode(_ v: Float) -> Float {
        let a = abs(v)
        let l = a <= 0.04045 ? a / 12.92 : powf((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -l : l
    }

    @inline(__always)
    static func encode(_ v: Float) -> Float {
        let a = abs(v)
        let e = a <= 0.0031308 ? a * 12.92 : 1.055 * powf(a, 1 / 2.4) - 0.055
        return v < 0 ? -e : e
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], n = count * outputChannels
        if toLinear {
            for i in 0..<n { output[i] = Self.decode(src[i]) }
        } else {
            for i in 0..<n { output[i] = Self.encode(src[i]) }
        }
    }
}
