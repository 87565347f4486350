/// Two-input compositing of images (or planes) of one kind. Core Image: CIMultiplyCompositing,
/// CIScreenBlendMode, CIAdditionCompositing, CISourceOverCompositing.
///
/// Our images carry no alpha, so source-over takes the foreground's coverage as a third input (a plane):
/// fg·a + bg·(1 − a), the premultiplied source-over of an opaque foreground with coverage a.
public struct Composite: PointwiseFilter {
    public enum Mode: String, Sendable, CaseIterable {
        /// fg · bg.
        case multiply
        /// 1 − (1 − fg)(1 − bg).
        case screen
        /// fg + bg.
        case add
        /// fg · a + bg · (1 − a), with a third input a (plane).
        case sourceOver
    }

    public static let placement = PixelPlacement.mixed
    public static let info = FilterInfo(
        name: "composite", coreImageName: "CIMultiplyCompositing / CIScreenBlendMode / CIAdditionCompositing / CISourceOverCompositing",
        summary: "Combine a foreground and a background: multiply, screen, add, or source-over with a coverage plane.")

    public let mode: Mode

    public init(_ mode: Mode) {
        self.mode = mode
    }

    public var parameterKey: String { mode.rawValue }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        let ok = mode == .sourceOver ? (inputs.count == 3 && inputs[0] == inputs[1] && inputs[2] == .plane)
                                      : (inputs.count == 2 && inputs[0] == inputs[1])
        guard ok else {
            throw RenderError.badInputs(filter: Self.info.name,
                                        message: mode == .sourceOver ? "expects foreground, background and a coverage plane"
                                                                     : "expects foreground and background of one kind")
        }
        return inputs[0]
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let fg = inputs[0], bg = inputs[1], n = count * outputChannels
        switch mode {
        case .multiply: for i in 0..<n { output[i] = fg[i] * bg[i] }
        case .screen: for i in 0..<n { output[i] = 1 - (1 - fg[i]) * (1 - bg[i]) }
        case .add: for i in 0..<n { output[i] = fg[i] + bg[i] }
        case .sourceOver:
            let a = inputs[2], ch = outputChannels
            for i in 0..<count {
                for c in 0..<ch { output[i * ch + c] = fg[i * ch + c] * a[i] + bg[i * ch + c] * (1 - a[i]) }
            }
        }
    }
}
