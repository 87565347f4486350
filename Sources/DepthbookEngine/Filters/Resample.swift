/// Resamples its input to a new native size (e.g. a quarter-resolution mask up to the image's size).
///
/// The input is rendered at its own resolution times the render scale, but never coarser than half the
/// output's pixels across (up to the input's native size): a 768-px depth mask brought up to a 12 MP photo's
/// 736-px preview is worked on at 368 px, not at the 140 px the photo's scale would give, whose pixels showed
/// as steps along every edge. Reductions widen the kernel (area-like).
/// Core Image: CILanczosScaleTransform / CIAffineTransform (scale part).
public struct Resample: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "resample", coreImageName: "CILanczosScaleTransform",
        summary: "Resample to a new size with nearest, bilinear, bicubic or Lanczos interpolation (half-pixel centres, edges clamped).",
        parameters: [
            ParameterInfo("width", range: 1...65536, unit: "px", doc: "Output width at full resolution."),
            ParameterInfo("height", range: 1...65536, unit: "px", doc: "Output height at full resolution."),
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

    public func extent(inputs: [PixelSize]) -> PixelSize { size }

    /// The least resolution an enlarged input is rendered at, as a share of the output's pixels across: half
    /// keeps its steps under two output pixels, which the enlargement's interpolation smooths away, at a
    /// quarter of the work a full share costs every frame of a drag (measured: gaps of 76–99 ms at a full share
    /// against 66–79 ms before, on the pug's depth-threshold drag).
    public static let leastInputShare = 0.5

    /// The input's frame at this render: its native size times the render scale, or, when that is coarser than
    /// half the output's pixels across, that many (never more than native).
    func inputSize(_ target: RenderTarget, inputExtent: PixelSize) -> PixelSize {
        func side(_ native: Int, _ out: Int, _ full: Int) -> Int {
            let scaled = Double(native) * Double(out) / Double(full)
            return max(1, Int(max(scaled, min(Double(native), Double(out) * Self.leastInputShare)).rounded()))
        }
        let width = side(inputExtent.width, target.size.width, size.width)
        // The height follows the width's scale, so the input keeps its aspect.
        let k = Double(width) / Double(inputExtent.width)
        return PixelSize(width: width, height: max(1, Int((Double(inputExtent.height) * k).rounded())))
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
