import func Foundation.powf

/// out = in^power per channel (negative values keep their sign: −(|x|^power)); NaN stays NaN.
/// Core Image: CIGammaAdjust.
public struct Gamma: PointwiseFilter, OneInputFilter {
    public static let info = FilterInfo(
        name: "gamma", coreImageName: "CIGammaAdjust",
        summary: "Raise every sample to a power (0.5 brightens, 2 darkens).",
        parameters: [
            ParameterInfo("power", range: 0.01...10, doc: "Exponent (CIGammaAdjust's inputPower)."),
        ])

    public let power: Float

    public init(power: Double) throws {
        try Self.info.validate("power", power)
        self.power = Float(power)
    }

    public var parameterKey: String { "p=\(power)" }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], p = power, n = count * outputChannels
        if p == 0.5 {
            for i in 0..<n {
                let v = src[i], r = abs(v).squareRoot()
                output[i] = v < 0 ? -r : r
            }
        } else {
            for i in 0..<n { let v = src[i]; output[i] = v >= 0 ? powf(v, p) : -powf(-v, p) }
        }
    }
}
