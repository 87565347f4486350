/// Raises the saturation of dull colours more than of saturated ones (skin stays natural).
/// Core Image: CIVibrance (an approximation: Core Image's exact curve is undocumented).
///
/// With s = max(r,g,b) − min(r,g,b) (0...1), each channel moves away from luma by
/// factor 1 + amount·(1 − s); negative amounts desaturate dull colours first.
public struct Vibrance: PointwiseFilter {
    public static let info = FilterInfo(
        name: "vibrance", coreImageName: "CIVibrance",
        summary: "Saturation boost weighted towards unsaturated colours.",
        parameters: [ParameterInfo("amount", range: -1...1,
                                   doc: "Strength; 0 leaves the image unchanged.")])

    public let amount: Float

    public init(amount: Double) throws {
        try Self.info.validate("amount", amount)
        self.amount = Float(amount)
    }

    public var parameterKey: String { "a=\(amount)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], a = amount
        for i in 0..<count {
            let j = i * 3
            let r = src[j], g = src[j + 1], b = src[j + 2]
            let spread = min(1, max(0, max(r, g, b) - min(r, g, b)))
            let f = 1 + a * (1 - spread)
            let y = Luma.rec601(r, g, b)
            output[j] = y + (r - y) * f
            output[j + 1] = y + (g - y) * f
            output[j + 2] = y + (b - y) * f
        }
    }
}
