/// What lies behind the near edges of a photo, for views that look past them (dolly zoom): every pixel nearer by
/// more than `ratio` than a surface within `band` of it is taken away, its colour filled with the farther
/// surfaces' own texture (`PatchInpaint`) and its depth with theirs. Only a band along each near edge is
/// replaced: that is all a moved camera can see behind it, and the inside of a subject is never copied from.
/// Computed once per photo and size, whatever the camera does (the evaluator keeps it), so a drag pays only for
/// drawing it.
public struct BackgroundPlate: Filter {
    public static let placement = PixelPlacement.inPlace
    public static let info = FilterInfo(
        name: "backgroundPlate", coreImageName: nil,
        summary: "The photo (or its depth) with the band along each near edge replaced by the surface behind it.",
        parameters: [
            ParameterInfo("band", range: 0.005...0.5, doc: "Width replaced along each near edge, as a share of the frame's width."),
            ParameterInfo("ratio", range: 1.001...10, doc: "How much farther a surface must be to count as behind an edge."),
        ])

    /// Which layer of the plate a node makes.
    public enum Layer: String, Sendable {
        /// The colours: inputs image and depth.
        case colour
        /// The depth: input depth alone.
        case depth
    }

    public let layer: Layer
    public let band: Double
    public let ratio: Double

    public init(layer: Layer, band: Double = 0.06, ratio: Double = 1.1) throws {
        try Self.info.validate("band", band)
        try Self.info.validate("ratio", ratio)
        self.layer = layer
        self.band = band
        self.ratio = ratio
    }

    public var parameterKey: String { "layer=\(layer.rawValue),band=\(band),ratio=\(ratio)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        switch layer {
        case .colour: try expect(inputs, [.image, .plane]); return .image
        case .depth: try expect(inputs, [.plane]); return .plane
        }
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.first ?? PixelSize(width: 1, height: 1) }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        inputExtents.map { _ in RenderTarget(size: target.size) }
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let depthBuffer = inputs[layer == .colour ? 1 : 0]
        let size = request.target.size
        guard let far = DepthPlaneFill.largestValid(depthBuffer.samples, positive: true) else {
            throw RenderError.missingPlane("valid depth (the depth plane is all holes)")
        }
        let depth = DepthPlaneFill.filled(depthBuffer.samples, with: far, positive: true)
        let (hole, source) = Self.regions(depth: depth, size: size, band: band, ratio: Float(ratio))
        try context.checkCancelled()
        switch layer {
        case .depth:
            var weights = [Float](repeating: 0, count: depth.count), values = depth
            for i in depth.indices { if source[i] { weights[i] = 1 } else { values[i] = 0 } }
            let behind = PushPull.fill(colors: values, weights: weights, channels: 1, width: size.width, height: size.height)
            let out = depth.indices.map { hole[$0] ? behind[$0] : depth[$0] }
            return PixelBuffer(region: PixelRect(size), channels: 1, samples: out).cropped(to: request.region)
        case .colour:
            return PatchInpaint.filled(inputs[0], hole: hole, source: source).cropped(to: request.region)
        }
    }

    /// The pixels replaced (within `band` of a surface farther by `ratio`, and two pixels around them, where the
    /// photo mixes the edge's colours), and those the fill may copy from: not replaced, and as far as the
    /// surfaces the replaced ones border (at least the median of their neighbourhood's farthest depth / ratio).
    static func regions(depth: [Float], size: PixelSize, band: Double, ratio: Float) -> (hole: [Bool], source: [Bool]) {
        let w = size.width, h = size.height
        let radius = max(1, Int((band * Double(w)).rounded()))
        let farthest = SlidingMax.square(depth, width: w, height: h, radius: radius)
        let near = depth.indices.map { depth[$0] * ratio < farthest[$0] }
        let hole = SlidingMax.square(near.map { $0 ? 1 : 0 }, width: w, height: h, radius: 2).map { $0 > 0 }
        var behind = hole.indices.filter { hole[$0] }.map { farthest[$0] }
        guard !behind.isEmpty else { return (hole, hole.map { !$0 }) }
        behind.sort()
        let floor = behind[behind.count / 2] / ratio
        return (hole, depth.indices.map { !hole[$0] && depth[$0] >= floor })
    }
}

/// The maximum over a square window (edges clamped), rows then columns, with the engine's running extremum.
enum SlidingMax {
    static func square(_ values: [Float], width w: Int, height h: Int, radius r: Int) -> [Float] {
        let rows = (0..<h).flatMap { y in along(Array(values[(y * w)..<(y * w + w)]), radius: r) }
        var result = [Float](repeating: 0, count: w * h)
        for x in 0..<w {
            let column = along((0..<h).map { rows[$0 * w + x] }, radius: r)
            for y in 0..<h { result[y * w + x] = column[y] }
        }
        return result
    }

    /// max(line[i − r ... i + r]) for each i, past the ends not counted.
    static func along(_ line: [Float], radius r: Int) -> [Float] {
        let n = line.count, window = 2 * r + 1
        guard n > 0 else { return [] }
        var padded = [Float](repeating: -.infinity, count: n + 2 * r)
        for i in 0..<n { padded[i + r] = line[i] }
        var out = [Float](repeating: 0, count: n)
        var forward = padded, backward = padded
        padded.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { o in
                forward.withUnsafeMutableBufferPointer { f in
                    backward.withUnsafeMutableBufferPointer { b in
                        RunningExtremum(isMax: true).run(src.baseAddress!, window: window, count: n, out: o.baseAddress!,
                                                         forward: f.baseAddress!, backward: b.baseAddress!)
                    }
                }
            }
        }
        return out
    }
}
