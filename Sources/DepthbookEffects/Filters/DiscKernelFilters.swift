import DepthbookEngine

/// The disc x² + y² ≤ r² as one horizontal half-width per row offset: the shape closing and bokeh share.
struct DiscRows {
    let radius: Int
    /// halfWidth[dy + radius] for dy in −radius...radius.
    let halfWidth: [Int]

    init(radius: Double) {
        let r = max(0, Int(radius.rounded()))
        self.radius = r
        halfWidth = (-r...r).map { dy in Int(Double(r * r - dy * dy).squareRoot().rounded(.down)) }
    }

    var area: Int { halfWidth.reduce(0) { $0 + 2 * $1 + 1 } }
}

/// Morphological closing of a mask with a disc (dilate, then erode), frame edges clamped. Exact: each
/// output is the min over the disc of the max over the disc, computed row segment by row segment.
struct ClosingFilter: Filter {
    static let info = FilterInfo(
        name: "closing", coreImageName: "CIMorphologyMaximum + CIMorphologyMinimum",
        summary: "Dilate then erode with a disc, edges clamped.",
        parameters: [ParameterInfo("radius", label: "Radius", range: 0...500, default: 4, unit: "px", doc: "Disc radius, native pixels.")])

    let radius: Double
    var parameterKey: String { "r=\(radius)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        try Self.info.validate("radius", radius)
        return .plane
    }

    private func disc(_ scale: Double) -> DiscRows { DiscRows(radius: radius * scale) }

    /// Dilation then erosion each reach one radius: the input needs two radii of margin.
    func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let r = disc(Double(target.size.width) / Double(extent.width)).radius
        return [target.with(region: target.region.outset(by: 2 * r))]
    }

    func render(_ inputs: [PixelBuffer], _ request: DepthbookEngine.RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let d = disc(request.scale)
        let input = inputs[0]
        if d.radius == 0 { return input.cropped(to: request.region) }
        // Dilate over the input region shrunk by one radius (still clipped to the frame), then erode to the target.
        let middle = input.region.intersection(request.region.outset(by: d.radius))
        let dilated = Self.morph(input, region: middle, disc: d, frame: request.target.frame, takeMax: true, context: context)
        try context.checkCancelled()
        return Self.morph(dilated, region: request.region, disc: d, frame: request.target.frame, takeMax: false, context: context)
    }

    /// Max (or min) over the disc of `source` for every pixel of `region`; reads are clamped to the frame
    /// and to what `source` holds (which always covers the frame-clipped neighbourhood here).
    static func morph(_ source: PixelBuffer, region: PixelRect, disc: DiscRows, frame: PixelRect, takeMax: Bool,
                      context: RenderContext) -> PixelBuffer {
        let src = source.region
        return PixelBuffer(region: region, channels: 1) { out in
            let o = SendableOutput(out.baseAddress!)
            source.samples.withUnsafeBufferPointer { s in
                context.parallelRows(region.height) { rows in
                    for row in rows {
                        let y = region.y + row
                        for col in 0..<region.width {
                            let x = region.x + col
                            var best: Float = takeMax ? -.infinity : .infinity
                            for dy in -disc.radius...disc.radius {
                                let yy = min(max(y + dy, max(frame.y, src.y)), min(frame.maxY, src.maxY) - 1)
                                let w = disc.halfWidth[dy + disc.radius]
                                let x0 = max(x - w, max(frame.x, src.x)), x1 = min(x + w, min(frame.maxX, src.maxX) - 1)
                                let base = (yy - src.y) * src.width - src.x
                                if x0 > x1 { continue }
                                for xx in x0...x1 {
                                    let v = s[base + xx]
                                    best = takeMax ? max(best, v) : min(best, v)
                                }
                            }
                            o.pointer[row * region.width + col] = best
                        }
                    }
                }
            }
        }
    }
}

/// A true disc (bokeh) blur: the mean over a flat disc, edges clamped, via per-row prefix sums so each
/// output pixel costs one subtraction per disc row (CIDiscBlur).
struct DiscBlurFilter: Filter {
    static let info = FilterInfo(
        name: "discBlur", coreImageName: "CIDiscBlur", summary: "Mean over a flat disc, edges clamped.",
        parameters: [ParameterInfo("radius", label: "Radius", range: 0...500, default: 20, unit: "px", doc: "Disc radius, native pixels.")])

    let radius: Double
    var parameterKey: String { "r=\(radius)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        try Self.info.validate("radius", radius)
        return inputs[0]
    }

    func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let r = DiscRows(radius: radius * Double(target.size.width) / Double(extent.width)).radius
        return [target.with(region: target.region.outset(by: r))]
    }

    func render(_ inputs: [PixelBuffer], _ request: DepthbookEngine.RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let d = DiscRows(radius: radius * request.scale)
        let input = inputs[0], region = request.region, frame = request.target.frame
        if d.radius == 0 { return input.cropped(to: region) }
        let ch = input.channels, src = input.region
        // Prefix sums along each input row, with the row clamped out to ±radius beyond the frame edge.
        let pad = d.radius, paddedWidth = src.width + 2 * pad + 1
        var prefix = [Float](repeating: 0, count: src.height * paddedWidth * ch)
        input.samples.withUnsafeBufferPointer { s in
            for row in 0..<src.height {
                var sum = [Float](repeating: 0, count: ch)
                for i in 0..<(src.width + 2 * pad) {
                    let x = min(max(src.x + i - pad, max(frame.x, src.x)), min(frame.maxX, src.maxX) - 1) - src.x
                    for c in 0..<ch {
                        sum[c] += s[(row * src.width + x) * ch + c]
                        prefix[(row * paddedWidth + i + 1) * ch + c] = sum[c]
                    }
                }
            }
        }
        let area = Float(d.area)
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendableOutput(out.baseAddress!)
            prefix.withUnsafeBufferPointer { p in
                context.parallelRows(region.height) { rows in
                    for row in rows {
                        let y = region.y + row
                        for col in 0..<region.width {
                            let x = region.x + col
                            for c in 0..<ch {
                                var total: Float = 0
                                for dy in -d.radius...d.radius {
                                    let yy = min(max(y + dy, max(frame.y, src.y)), min(frame.maxY, src.maxY) - 1) - src.y
                                    let w = d.halfWidth[dy + d.radius]
                                    // Padded index of column x is x − src.x + pad; the sum over [x−w, x+w].
                                    let hi = x - src.x + pad + w + 1, lo = x - src.x + pad - w
                                    total += p[(yy * paddedWidth + hi) * ch + c] - p[(yy * paddedWidth + lo) * ch + c]
                                }
                                o.pointer[(row * region.width + col) * ch + c] = total / area
                            }
                        }
                    }
                }
            }
        }
    }
}
