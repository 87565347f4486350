/// Passes its input through unchanged (used to copy a cached buffer out of a fused chain).
public struct Identity: PointwiseFilter {
    public static let info = FilterInfo(name: "identity", coreImageName: nil, summary: "The input, unchanged.")
    public var parameterKey: String { "" }

    public init() {}

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else {
            throw RenderError.badInputs(filter: Self.info.name, message: "expects one input")
        }
        return inputs[0]
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        output.update(from: inputs[0], count: count * outputChannels)
    }
}
