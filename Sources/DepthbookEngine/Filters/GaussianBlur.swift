/// Gaussian blur of an image or plane, edges clamped (Core Image: CIGaussianBlur on a clamped image).
///
/// The kernel is truncated at ±ceil(3σ) (OpenCV/SciPy's `truncate=3`). σ is in native pixels and scales
/// with the render. Up to σ = 12 render pixels the kernel is exact (2·⌈3σ⌉ + 1 taps, SIMD, constant
/// regions skipped); above, `PyramidGaussian` keeps the cost per pixel constant at a small approximation.
public struct GaussianBlur: OneInputFilter {
    public static let info = FilterInfo(
        name: "gaussianBlur", coreImageName: "CIGaussianBlur",
        summary: "Gaussian blur, kernel truncated at ±3σ, frame edge clamped.",
        parameters: [
            ParameterInfo("sigma", range: 0...500, unit: "px",
                          doc: "Standard deviation in pixels of the plane at native resolution (CIGaussianBlur's inputRadius)."),
        ])

    public let sigma: Double

    public init(sigma: Double) throws {
        try Self.info.validate("sigma", sigma)
        self.sigma = sigma
    }

    public var parameterKey: String { "sigma=\(sigma)" }

    func convolution(scale: Double) -> SeparableConvolution {
        let w = gaussianWeights(sigma: sigma * scale)
        return SeparableConvolution(horizontal: w, vertical: w)
    }

    /// Render σ above which the constant-cost pyramid replaces the exact kernel.
    static let exactLimit = 12.0

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let scale = Double(target.size.width) / Double(extent.width)
        if sigma * scale > Self.exactLimit {
            return [target.with(region: PyramidGaussian(sigma: sigma * scale).inputRegion(for: target.region, frame: target.frame))]
        }
        return [target.with(region: convolution(scale: scale).inputRegion(for: target.region, frame: target.frame))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        if sigma * request.scale > Self.exactLimit {
            return PyramidGaussian(sigma: sigma * request.scale).run(inputs[0], region: request.region,
                                                                    frame: request.target.frame, context: context)
        }
        return convolution(scale: request.scale).run(inputs[0], region: request.region, frame: request.target.frame, context: context)
    }
}

extension GaussianBlur: RowStreamingFilter {
    /// The exact kernel reads rows; the pyramid (large σ) works on whole planes.
    func canStream(_ request: RenderRequest) -> Bool { sigma * request.scale <= Self.exactLimit }

    func render(streaming rows: ResampledRows, _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        convolution(scale: request.scale).run(.resampled(rows), region: request.region, frame: request.target.frame,
                                              context: context)
    }
}
