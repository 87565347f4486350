import func Foundation.exp2

/// Exposure in EV applied in linear light: decode sRGB, multiply by 2^EV, encode (not clamped).
/// Core Image: CIExposureAdjust.
public struct Exposure: PointwiseFilter {
    public static let info = FilterInfo(
        name: "exposure", coreImageName: "CIExposureAdjust",
        summary: "Brighten or darken by EV stops, in linear light.",
        parameters: [ParameterInfo("ev", label: "Exposure", range: -10...10, default: 0, unit: "EV",
                                   doc: "Stops: +1 doubles the light, −1 halves it (CIExposureAdjust's inputEV).")])

    public let ev: Double

    public init(ev: Double) throws {
        try Self.info.validate("ev", ev)
        self.ev = ev
    }

    public var parameterKey: String { "ev=\(ev)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], gain = Float(exp2(ev))
        for i in 0..<(count * 3) { output[i] = SRGBTransfer.encode(SRGBTransfer.decode(src[i]) * gain) }
    }
}
