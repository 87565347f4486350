/// Darkens each pixel by its normalised disparity raised to a power: rgb · nᵖ, n = (d − low)/(high − low)
/// clamped to 0...1. Power 0 leaves the image exactly as it is (n⁰ = 1, holes included); power 1 scales by
/// disparity (the inverse of depth); higher powers send the background to black faster. The WWDC 2017
/// "darken by depth" custom colour kernel.
///
/// Inputs: an image and a disparity plane. Holes count as the farthest disparity (n = 0).
public struct DarkenByDisparity: PointwiseFilter {
    public static let info = FilterInfo(
        name: "darkenByDisparity", coreImageName: "CIColorKernel (custom)",
        summary: "Scale pixels by normalised disparity to a power (0 = no effect).",
        parameters: [
            ParameterInfo("power", range: 0...32,
                          doc: "Exponent applied to normalised disparity; 0 is no effect, higher darkens the background faster."),
            ParameterInfo("low", range: -1e9...1e9,
                          doc: "Disparity mapped to 0 (the plane's minimum, usually)."),
            ParameterInfo("high", range: -1e9...1e9,
                          doc: "Disparity mapped to 1 (the plane's maximum, usually)."),
        ])

    public let power: Float
    public let low: Float
    public let high: Float

    public init(power: Double, low: Double, high: Double) throws {
        try Self.info.validate("power", power)
        try Self.info.validate("low", low)
        try Self.info.validate("high", high)
        self.power = Float(power)
        self.low = Float(low)
        self.high = Float(high)
    }

    public var parameterKey: String { "p=\(power),lo=\(low),hi=\(high)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let rgb = inputs[0], d = inputs[1]
        if power == 0 {
            output.update(from: rgb, count: count * 3)
            return
        }
        let span = high - low
        let inv: Float = span > 0 ? 1 / span : 0
        for i in 0..<count {
            let v = d[i]
            let n = v.isNaN ? 0 : Swift.min(1, Swift.max(0, (v - low) * inv))
            let k = power == 1 ? n : (n > 0 ? Float(pow(Double(n), Double(power))) : 0)
            output[i * 3] = rgb[i * 3] * k
            output[i * 3 + 1] = rgb[i * 3 + 1] * k
            output[i * 3 + 2] = rgb[i * 3 + 2] * k
        }
    }
}

import func Foundation.pow
