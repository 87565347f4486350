/// What lies behind the subject of a photo, for views that look past its edge (dolly zoom): the subject (a mask,
/// 1 in front) is taken away along its edge, its colour there filled with the background's own texture
/// (`PatchInpaint`) and its depth with the background's. Only a band along the edge is replaced: that is all a
/// moved camera can see behind it, and the subject is never copied from. (Found from depth edges alone, the
/// band covered three quarters of an Android lens-blur photo, whose map jumps by a tenth all over.)
/// Computed once per photo and size, whatever the camera does (the evaluator keeps it), so a drag pays only for
/// drawing it.
public struct BackgroundPlate: Filter {
    public static let placement = PixelPlacement.inPlace
    public static let info = FilterInfo(
        name: "backgroundPlate", coreImageName: nil,
        summary: "The photo (or its depth) with the band along each near edge replaced by the surface behind it.",
        parameters: [
            ParameterInfo("band", range: 0.005...0.5, doc: "Width replaced along the subject's edge, as a share of the frame's width."),
        ])

    /// Which layer of the plate a node makes.
    public enum Layer: String, Sendable {
        /// The colours: inputs image, depth and the subject's mask.
        case colour
        /// The depth: inputs depth and the subject's mask.
        case depth
    }

    public let layer: Layer
    public let band: Double

    public init(layer: Layer, band: Double = 0.05) throws {
        try Self.info.validate("band", band)
        self.layer = layer
        self.band = band
    }

    public var parameterKey: String { "layer=\(layer.rawValue),band=\(band)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        switch layer {
        case .colour: try expect(inputs, [.image, .plane, .plane]); return .image
        case .depth: try expect(inputs, [.plane, .plane]); return .plane
        }
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.first ?? PixelSize(width: 1, height: 1) }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        inputExtents.map { _ in RenderTarget(size: target.size) }
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let depthBuffer = inputs[layer == .colour ? 1 : 0], front = inputs[layer == .colour ? 2 : 1]
        let size = request.target.size
        guard let far = DepthPlaneFill.largestValid(depthBuffer.samples, positive: true) else {
            throw RenderError.missingPlane("valid depth (the depth plane is all holes)")
        }
        let depth = DepthPlaneFill.filled(depthBuffer.samples, with: far, positive: true)
        let (hole, source) = Self.regions(front: front.samples, size: size, band: band)
        try context.checkCancelled()
        switch layer {
        case .depth:
            var weights = [Float](repeating: 0, count: depth.count), values = depth
            for i in depth.indices { if source[i] { weights[i] = 1 } else { values[i] = 0 } }
            let behind = PushPull.fill(colors: values, weights: weights, channels: 1, width: size.width, height: size.height)
            let out = depth.indices.map { hole[$0] ? behind[$0] : depth[$0] }
            return PixelBuffer(region: PixelRect(size), channels: 1, samples: out).cropped(to: request.region)
        case .colour:
            return try PatchInpaint.filled(inputs[0], hole: hole, source: source, checkCancelled: context.checkCancelled).cropped(to: request.region)
        }
    }

    /// The pixels replaced: the subject's (`front` ≥ 0.5) within `band` of its edge, and two pixels beyond,
    /// where the photo mixes the edge's colours. Sources: the rest of what is not the subject.
    static func regions(front: [Float], size: PixelSize, band: Double) -> (hole: [Bool], source: [Bool]) {
        let w = size.width, h = size.height
        let radius = max(1, Int((band * Double(w)).rounded()))
        let behind = SlidingMax.square(front.map { $0 >= 0.5 ? 0 : 1 }, width: w, height: h, radius: radius)
        let edgeBand = front.indices.map { front[$0] >= 0.5 && behind[$0] > 0 ? Float(1) : 0 }
        let hole = SlidingMax.square(edgeBand, width: w, height: h, radius: 2).map { $0 > 0 }
        let nearFront = SlidingMax.square(front.map { $0 >= 0.5 ? 1 : 0 }, width: w, height: h, radius: 2)
        return (hole, hole.indices.map { !hole[$0] && nearFront[$0] == 0 })
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
