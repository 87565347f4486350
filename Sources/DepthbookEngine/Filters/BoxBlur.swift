/// Mean over a (2r + 1) × (2r + 1) square, edges clamped. Core Image: CIBoxBlur (whose inputRadius is this r).
/// Separable, SIMD, O(r) additions per pixel.
public struct BoxBlur: OneInputFilter {
    public static let info = FilterInfo(
        name: "boxBlur", coreImageName: "CIBoxBlur",
        summary: "Mean over a square window, frame edge clamped.",
        parameters: [ParameterInfo("radius", range: 0...200, unit: "px",
                                   doc: "Half side r of the (2r + 1)² window, in native pixels (rounded after scaling).")])

    public let radius: Double

    public init(radius: Double) throws {
        try Self.info.validate("radius", radius)
        self.radius = radius
    }

    public var parameterKey: String { "r=\(radius)" }

    static func convolution(radius: Int) -> SeparableConvolution {
        let w = [Float](repeating: 1 / Float(2 * radius + 1), count: 2 * radius + 1)
        return SeparableConvolution(horizontal: w, vertical: w)
    }

    func convolution(scale: Double) -> SeparableConvolution {
        Self.convolution(radius: Int((radius * scale).rounded()))
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let scale = Double(target.size.width) / Double(extent.width)
        return [target.with(region: convolution(scale: scale).inputRegion(for: target.region, frame: target.frame))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        convolution(scale: request.scale).run(inputs[0], region: request.region, frame: request.target.frame, context: context)
    }
}
