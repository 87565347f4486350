/// Edge-preserving smoothing of a plane guided by the image (He, Sun & Tang's guided filter, grey guide =
/// Rec.601 luma): used to upsample depth and mattes so their edges snap to the photo's edges.
/// Core Image has no public equivalent (CIEdgePreserveUpsampleFilter is the closest).
///
/// Inputs: the plane (rendered at the image's size, i.e. bilinearly upsampled when smaller) and the image.
/// Box means over (2r + 1)², edges clamped; the plane must have no holes (fill them first).
public struct GuidedFilter: Filter {
    public static let info = FilterInfo(
        name: "guidedFilter", coreImageName: "CIEdgePreserveUpsampleFilter (closest)",
        summary: "Smooth a plane while keeping the image's edges (guided filter).",
        parameters: [
            ParameterInfo("radius", range: 1...100, unit: "px", doc: "Window half side r in native image pixels."),
            ParameterInfo("epsilon", range: 1e-8...1,
                          doc: "Regularisation: larger smooths across weaker edges (guide values are 0...1)."),
        ])

    public let radius: Double
    public let epsilon: Double

    public init(radius: Double, epsilon: Double) throws {
        try Self.info.validate("radius", radius)
        try Self.info.validate("epsilon", epsilon)
        self.radius = radius
        self.epsilon = epsilon
    }

    public var parameterKey: String { "r=\(radius),e=\(epsilon)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane, .image])
        return .plane
    }

    /// The guide's size: the output lives at the image's resolution.
    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.count > 1 ? inputs[1] : (inputs.first ?? PixelSize(width: 1, height: 1)) }

    func r(_ scale: Double) -> Int { max(1, Int((radius * scale).rounded())) }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let grownTarget = grown(target, by: 2 * r(Double(target.size.width) / Double(extent.width)))
        return [grownTarget, grownTarget]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let p = inputs[0], image = inputs[1], frame = request.target.frame
        let radius = r(request.scale)
        let box = BoxBlur.convolution(radius: radius)
        let inner = request.region.outset(by: radius).intersection(frame)
        let n = p.samples.count
        var guide = [Float](repeating: 0, count: n)
        for i in 0..<n { guide[i] = Luma.rec601(image.samples[i * 3], image.samples[i * 3 + 1], image.samples[i * 3 + 2]) }
        let region = p.region
        func plane(_ values: [Float]) -> PixelBuffer { PixelBuffer(region: region, channels: 1, samples: values) }
        // Stage 1: means over the region grown by r.
        let stacked = PixelBuffer(region: region, channels: 4, samples: (0..<n).flatMap { i -> [Float] in
            let g = guide[i], v = p.samples[i]
            return [g, v, g * g, g * v]
        })
        let means = box.run(stacked, region: inner, frame: frame, context: context)
        try context.checkCancelled()
        let m = inner.pixelCount
        var ab = [Float](repeating: 0, count: m * 2)
        let eps = Float(epsilon)
        for i in 0..<m {
            let mi = means.samples[i * 4], mp = means.samples[i * 4 + 1]
            let vi = means.samples[i * 4 + 2] - mi * mi, cip = means.samples[i * 4 + 3] - mi * mp
            let a = cip / (vi + eps)
            ab[i * 2] = a
            ab[i * 2 + 1] = mp - a * mi
        }
        // Stage 2: mean of a and b over the region, then q = mean_a · I + mean_b.
        let abMeans = box.run(PixelBuffer(region: inner, channels: 2, samples: ab), region: request.region, frame: frame, context: context)
        let guideBuffer = plane(guide).cropped(to: request.region)
        return PixelBuffer(region: request.region, channels: 1, samples: (0..<request.region.pixelCount).map { i in
            abMeans.samples[i * 2] * guideBuffer.samples[i] + abMeans.samples[i * 2 + 1]
        })
    }
}
