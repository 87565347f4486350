/// Upsamples a low-resolution plane (disparity) to a guide image's size with plain interpolation —
/// nearest, bilinear or bicubic — the baselines the 2017 talk sets edge-preserving upsampling against.
///
/// Unlike `Resample`, the plane is always read at its native resolution (or less, for previews smaller
/// than it), so a zoomed-in render shows the interpolation itself, not an interpolation of an already
/// interpolated plane. Holes are skipped (renormalised) as the photo planes' own resampling does.
public struct PlaneUpsample: Filter {
    public static let info = FilterInfo(
        name: "planeUpsample", coreImageName: "CIBicubicScaleTransform / CILanczosScaleTransform",
        summary: "Upsample a plane to the guide image's size with nearest, bilinear or bicubic interpolation.")

    public let method: ResamplingMethod

    public init(method: ResamplingMethod) {
        self.method = method
    }

    public var parameterKey: String { method.rawValue }

    /// Inputs: the low-resolution plane, then the image whose size it is brought to.
    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane, .image])
        return .plane
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.count > 1 ? inputs[1] : (inputs.first ?? PixelSize(width: 1, height: 1)) }

    func resampler(_ target: RenderTarget, low: PixelSize) -> Resampler {
        Resampler(inSize: low, outSize: target.size, region: target.region, method: method, antialias: true, skipsNaN: true)
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let low = JointBilateralUpsample.lowSize(target, extent: extent, planeExtent: inputExtents[0])
        // The guide only fixes the size; one pixel of it is all that is read.
        return [RenderTarget(size: low, region: resampler(target, low: low).inputRegion),
                RenderTarget(size: target.size, region: PixelRect(x: target.region.x, y: target.region.y, width: 1, height: 1))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        resampler(request.target, low: request.inputTargets[0].size).run(input: inputs[0], region: request.region, context: context)
    }
}
