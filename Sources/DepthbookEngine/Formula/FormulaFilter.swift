/// A compiled formula as a pointwise filter: every output pixel is `program` applied to the same pixel of the
/// inputs. Being a `PointwiseFilter`, it fuses with the pointwise stages around it (a formula reading the
/// photo and a matte is one pass over row segments, like the built-in blend it may replace), and its inputs
/// are rendered at the target like any other filter's: a matte or depth map at another resolution is resampled
/// to the output.
///
/// Its native size is its largest input's (so a formula over the image and a half-size matte is image-sized,
/// one over the disparity alone is the depth map's size), or `frame` when it reads no input.
public struct FormulaFilter: PointwiseFilter {
    public static let info = FilterInfo(
        name: "formula", coreImageName: "CIColorKernel (a notebook formula)",
        summary: "A compiled per-pixel formula over its inputs: a notebook's formula cell.")

    public let program: FormulaProgram
    /// The native size when there is no input.
    public let frame: PixelSize
    /// Made when the filter first runs: a formula composed into the one below it never does, and each
    /// level of a 48-cell chain once built its kernels' byte and power tables (a quadratic cost) for nothing.
    private let kernels = MadeOnce<FormulaKernels>()

    public init(_ program: FormulaProgram, frame: PixelSize) throws(RenderError) {
        guard !frame.isEmpty else { throw .badParameter(filter: Self.info.name, name: "frame", message: "empty size \(frame)") }
        self.program = program
        self.frame = frame
    }

    public var parameterKey: String { "frame=\(frame.width)x\(frame.height);\(program)" }

    public var isChannelwise: Bool { program.isChannelwise }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs == program.inputs else {
            throw RenderError.badInputs(filter: Self.info.name,
                                        message: "expects inputs \(program.inputs.map(\.rawValue)), got \(inputs.map(\.rawValue))")
        }
        return program.outputKind
    }

    public func extent(inputs: [PixelSize]) -> PixelSize {
        inputs.max { $0.pixelCount < $1.pixelCount } ?? frame
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        kernels.value { FormulaKernels(program) }.run(inputs: inputs, inputChannels: inputChannels, output: output, outputChannels: outputChannels, count: count)
    }
}
