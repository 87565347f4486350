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

    /// Output rows computed at a time (at least 4r, so the 4r rows of overlap stay a fraction of the work): the
    /// working planes are a band's, not the frame's. Whole, the 12 MP pug's fitted subject took 1 GB.
    static let bandRows = 128

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let p = inputs[0], image = inputs[1], frame = request.target.frame, out = request.region
        let radius = r(request.scale)
        let box = BoxBlur.convolution(radius: radius)
        let bandRows = max(Self.bandRows, 4 * radius)
        var q = [Float](repeating: 0, count: out.pixelCount)
        for y in stride(from: out.y, to: out.maxY, by: bandRows) {
            try context.checkCancelled()
            let band = PixelRect(x: out.x, y: y, width: out.width, height: min(bandRows, out.maxY - y))
            let bandQ = bandResult(band, p: p, image: image, box: box, radius: radius, frame: frame, context: context)
            q.replaceSubrange((y - out.y) * out.width..<(y - out.y + band.height) * out.width, with: bandQ)
        }
        return PixelBuffer(region: out, channels: 1, samples: q)
    }

    /// q = mean(a) · I + mean(b) over `band`, from the moments over the rows it reaches (2r beyond it).
    private func bandResult(_ band: PixelRect, p: PixelBuffer, image: PixelBuffer, box: SeparableConvolution, radius: Int,
                            frame: PixelRect, context: RenderContext) -> [Float] {
        let inner = band.outset(by: radius).intersection(frame)
        let reads = inner.outset(by: radius).intersection(frame)
        // Stage 1: means of I, p, I², I·p over the band grown by r.
        // The per-pixel stages run on the render's threads like the box means between them (serial, they took
        // as long as the means: the pug's fitted mask at 736 px spent 18 ms here).
        let moments = PixelBuffer(region: reads, channels: 4) { buffer in
            let m = SendablePointer(buffer.baseAddress!)
            context.parallelRows(reads.height, samplesPerRow: reads.width * 4) { rows in
                for row in rows {
                    let y = reads.y + row
                    for column in 0..<reads.width {
                        let x = reads.x + column, i = row * reads.width + column
                        let g = luma(image, x, y), v = p[frameX: x, frameY: y, channel: 0]
                        m.pointer[i * 4] = g
                        m.pointer[i * 4 + 1] = v
                        m.pointer[i * 4 + 2] = g * g
                        m.pointer[i * 4 + 3] = g * v
                    }
                }
            }
        }
        let means = box.run(moments, region: inner, frame: frame, context: context)
        let eps = Float(epsilon)
        let ab = PixelBuffer(region: inner, channels: 2) { buffer in
            let ab = SendablePointer(buffer.baseAddress!)
            means.samples.withUnsafeBufferPointer { samples in
                let mean = SendablePointer(UnsafeMutablePointer(mutating: samples.baseAddress!))
                context.parallelRows(inner.height, samplesPerRow: inner.width * 2) { rows in
                    for i in rows.lowerBound * inner.width..<rows.upperBound * inner.width {
                        let mi = mean.pointer[i * 4], mp = mean.pointer[i * 4 + 1]
                        let vi = mean.pointer[i * 4 + 2] - mi * mi, cip = mean.pointer[i * 4 + 3] - mi * mp
                        let a = cip / (vi + eps)
                        ab.pointer[i * 2] = a
                        ab.pointer[i * 2 + 1] = mp - a * mi
                    }
                }
            }
        }
        // Stage 2: mean of a and b over the band, then q = mean_a · I + mean_b.
        let abMeans = box.run(ab, region: band, frame: frame, context: context)
        var q = [Float](repeating: 0, count: band.pixelCount)
        q.withUnsafeMutableBufferPointer { out in
            let qp = SendablePointer(out.baseAddress!)
            abMeans.samples.withUnsafeBufferPointer { samples in
                let coefficients = SendablePointer(UnsafeMutablePointer(mutating: samples.baseAddress!))
                context.parallelRows(band.height, samplesPerRow: band.width) { rows in
                    for row in rows {
                        for column in 0..<band.width {
                            let i = row * band.width + column
                            qp.pointer[i] = coefficients.pointer[i * 2] * luma(image, band.x + column, band.y + row)
                                + coefficients.pointer[i * 2 + 1]
                        }
                    }
                }
            }
        }
        return q
    }

    private func luma(_ image: PixelBuffer, _ x: Int, _ y: Int) -> Float {
        Luma.rec601(image[frameX: x, frameY: y, channel: 0], image[frameX: x, frameY: y, channel: 1],
                    image[frameX: x, frameY: y, channel: 2])
    }
}
