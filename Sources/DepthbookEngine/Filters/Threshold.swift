/// 1 where the plane is at or above a value, else 0 (NaN holes give 0). Core Image: CIColorThreshold.
public struct Threshold: PointwiseFilter {
    public static let info = FilterInfo(
        name: "threshold", coreImageName: "CIColorThreshold",
        summary: "Binary mask: 1 where value ≥ threshold, 0 elsewhere and in holes.",
        parameters: [
            ParameterInfo("threshold", range: -1e9...1e9,
                          doc: "Cut value, in the plane's own units."),
        ])

    public let threshold: Float

    public init(_ threshold: Double) throws {
        try Self.info.validate("threshold", threshold)
        self.threshold = Float(threshold)
    }

    public var parameterKey: String { "t=\(threshold)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], t = threshold
        for i in 0..<count { output[i] = src[i] >= t ? 1 : 0 }
    }
}
