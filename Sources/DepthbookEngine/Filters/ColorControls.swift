/// Saturation, brightness and contrast, in that order, on the stored (sRGB-encoded) values, not clamped.
/// Core Image: CIColorControls. Saturation mixes with Rec.601 luma; brightness is added; contrast scales
/// about 0.5.
public struct ColorControls: PointwiseFilter {
    public static let info = FilterInfo(
        name: "colorControls", coreImageName: "CIColorControls",
        summary: "Saturation (about luma), then brightness (added), then contrast (about 0.5).",
        parameters: [
            ParameterInfo("saturation", range: 0...4, doc: "0 grey, 1 unchanged, >1 more colourful."),
            ParameterInfo("brightness", range: -1...1, doc: "Added to every channel."),
            ParameterInfo("contrast", range: 0...4, doc: "Scale about mid-grey 0.5."),
        ])

    public let saturation: Float
    public let brightness: Float
    public let contrast: Float

    public init(saturation: Double = 1, brightness: Double = 0, contrast: Double = 1) throws {
        try Self.info.validate("saturation", saturation)
        try Self.info.validate("brightness", brightness)
        try Self.info.validate("contrast", contrast)
        self.saturation = Float(saturation)
        self.brightness = Float(brightness)
        self.contrast = Float(contrast)
    }

    public var parameterKey: String { "s=\(saturation),b=\(brightness),c=\(contrast)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], s = saturation, b = brightness, c = contrast
        for i in 0..<count {
            let j = i * 3
            let r = src[j], g = src[j + 1], bl = src[j + 2]
            let y = Luma.rec601(r, g, bl)
            output[j] = ((y + (r - y) * s + b) - 0.5) * c + 0.5
            output[j + 1] = ((y + (g - y) * s + b) - 0.5) * c + 0.5
            output[j + 2] = ((y + (bl - y) * s + b) - 0.5) * c + 0.5
        }
    }
}
