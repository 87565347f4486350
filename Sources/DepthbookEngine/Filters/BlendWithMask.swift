/// foreground · mask + background · (1 − mask), per channel. Core Image: CIBlendWithMask.
///
/// Inputs: foreground, background (both images or both planes) and a plane mask (0...1, not clamped).
public struct BlendWithMask: PointwiseFilter {
    public static let placement = PixelPlacement.mixed
    public static let info = FilterInfo(
        name: "blendWithMask", coreImageName: "CIBlendWithMask",
        summary: "Mix foreground and background through a 0...1 mask.")

    public init() {}

    public var parameterKey: String { "" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 3, inputs[0] == inputs[1], inputs[2] == .plane else {
            throw RenderError.badInputs(filter: Self.info.name,
                                        message: "expects foreground, background of one kind and a plane mask")
        }
        return inputs[0]
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let fg = inputs[0], bg = inputs[1], m = inputs[2]
        if outputChannels == 1 {
            for i in 0..<count { output[i] = bg[i] + (fg[i] - bg[i]) * m[i] }
        } else {
            for i in 0..<count {
                let a = m[i]
                let j = i * 3
                output[j] = bg[j] + (fg[j] - bg[j]) * a
                output[j + 1] = bg[j + 1] + (fg[j + 1] - bg[j + 1]) * a
                output[j + 2] = bg[j + 2] + (fg[j + 2] - bg[j + 2]) * a
            }
        }
    }
}
