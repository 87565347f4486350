/// Resamples its input to a new native size (e.g. a quarter-resolution mask up to the image's size).
///
/// The input is rendered at its own resolution times the render scale, so work done before the resample
/// (a closing of a depth mask) stays at depth resolution. Reductions widen the kernel (area-like).
/// Core Image: CILanczosScaleTransform / CIAffineTransform (scale part).
public struct Resample: Filter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "resample", coreImageName: "CILanczosScaleTransform",
        summary: "Resample to a new size with nearest, bilinear, bicubic or Lanczos interpolation (half-pixel centres, edges clamped).",
        parameters: [
            ParameterInfo("width", label: "Width", range: 1...65536, default: 1, unit: "px", doc: "Output width at full resolution."),
            ParameterInfo("height", label: "Height", range: 1...65536, default: 1, unit: "px", doc: "Output height at full resolution."),
        ])

    public let size: PixelSize
    public let method: ResamplingMethod

    public init(to size: PixelSize, method: ResamplingMethod = .bilinear) throws {
        try Self.info.validate("width", Double(size.width))
        try Self.info.validate("height", Double(size.height))
        self.size = size
        self.method = method
    }

    public var parameterKey: String { "\(size.width)x\(size.height),\(method.rawValue)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        return inputs[0]
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { size }

    /// The input's frame at this render: its native size times the render scale.
    func inputSize(_ target: RenderTarget, inputExtent: PixelSize) -> PixelSize {
        PixelSize(width: max(1, Int((Double(inputExtent.width) * Double(target.size.width) / Double(size.width)).rounded())),
                  height: max(1, Int((Double(inputExtent.height) * Double(target.size.height) / Double(size.height)).rounded())))
    }

    func resampler(_ target: RenderTarget, inputSize: PixelSize) -> Resampler {
        Resampler(inSize: inputSize, outSize: target.size, region: target.region, method: method, antialias: true,
                  skipsNaN: false)
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let inSize = inputSize(target, inputExtent: inputExtents[0])
        return [RenderTarget(size: inSize, region: resampler(target, inputSize: inSize).inputRegion)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], target = request.target
        let inSize = request.inputTargets[0].size
        if inSize == target.size { return input.cropped(to: target.region) }
        return resampler(target, inputSize: inSize).run(input: input, region: target.region, context: context)
    }
}
