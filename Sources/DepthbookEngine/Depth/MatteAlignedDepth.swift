/// A depth map whose subject edge lies on the subject's mask: the depth a moved camera (dolly zoom) displaces
/// the photo by, and the background plate behind it. A phone's depth map is coarser and softer than its matte: on
/// the shared TrueDepth selfie the wall's depth rises towards the head's over some 30 px (at 720 px wide) above
/// the matte's edge, so that wall moved part of the way with the head and was drawn as a smear over the gap it
/// opened; hair inside the matte carried the wall's depth and tore off the head in shards.
///
/// Within `band` of the mask's half-way line, outside it the depth is at least the background's (continued by
/// push-pull from beyond the band), inside it at most the subject's (continued from within): a halo of the
/// subject's depth on the wall goes back to the wall, strands of the wall's depth on the subject come to the
/// subject, and what already lies on its side of the edge stays as it is (a wall farther than the continuation).
/// Only where the depth steps at the mask's edge: a mask across a continuous surface changes nothing.
public struct MatteAlignedDepth: Filter {
    public static let placement = PixelPlacement.inPlace
    public static let info = FilterInfo(
        name: "matteAlignedDepth", coreImageName: nil,
        summary: "Depth with its subject edge moved onto the subject's mask (a halo of intermediate depth taken off).",
        parameters: [
            ParameterInfo("band", range: 0.005...0.3, doc: "How far from the mask's edge depth is aligned, as a share of the frame's width."),
        ])

    public let band: Double

    public init(band: Double = 0.1) throws {
        try Self.info.validate("band", band)
        self.band = band
    }

    public var parameterKey: String { "band=\(band)" }

    /// Inputs: the depth, then the subject's mask (1 in front).
    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane, .plane])
        return .plane
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.first ?? PixelSize(width: 1, height: 1) }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        inputExtents.map { _ in RenderTarget(size: target.size) }
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let size = request.target.size
        guard let far = DepthPlaneFill.largestValid(inputs[0].samples, positive: true) else {
            throw RenderError.missingPlane("valid depth (the depth plane is all holes)")
        }
        let depth = DepthPlaneFill.filled(inputs[0].samples, with: far, positive: true)
        let aligned = Self.aligned(depth, front: inputs[1].samples, size: size, radius: max(1, Int((band * Double(size.width)).rounded())))
        try context.checkCancelled()
        return PixelBuffer(region: PixelRect(size), channels: 1, samples: aligned).cropped(to: request.region)
    }

    /// `depth` (no holes) aligned to `front` within `radius` pixels of its half-way line.
    static func aligned(_ depth: [Float], front: [Float], size: PixelSize, radius: Int) -> [Float] {
        let w = size.width, h = size.height, n = w * h
        let inside = front.map { $0 >= 0.5 }
        guard inside.contains(true), inside.contains(false) else { return depth }
        // Within `radius` of the other side (a square window): the bands on either side of the edge.
        let nearInside = SlidingMax.square(inside.map { $0 ? 1 : 0 }, width: w, height: h, radius: radius)
        let nearOutside = SlidingMax.square(inside.map { $0 ? 0 : 1 }, width: w, height: h, radius: radius)
        func continued(_ from: (Int) -> Bool) -> [Float]? {
            var values = [Float](repeating: 0, count: n), weights = [Float](repeating: 0, count: n)
            for i in 0..<n where from(i) { values[i] = depth[i]; weights[i] = 1 }
            guard weights.contains(1) else { return nil }
            return PushPull.fill(colors: values, weights: weights, channels: 1, width: w, height: h)
        }
        let behind = continued { !inside[$0] && nearInside[$0] == 0 }
        let within = continued { inside[$0] && nearOutside[$0] == 0 }
        guard let behind, let within, let jump = Self.edgeSteps(depth, inside: inside, width: w, height: h) else { return depth }
        var out = depth
        for i in 0..<n where (inside[i] ? nearOutside[i] : nearInside[i]) > 0 {
            // Only where the edge is a step in depth (`edgeSteps`), fully from a 15 % step; nothing under 5 %.
            let step = min(1, max(0, (jump[i] - 1.05) / 0.1))
            guard step > 0 else { continue }
            let aligned = inside[i] ? min(depth[i], within[i]) : max(depth[i], behind[i])
            out[i] = depth[i] + step * (aligned - depth[i])
        }
        return out
    }

    /// How much farther the outside is than the inside across the mask's edge (the farthest depth outside over
    /// the nearest inside, within `reach` pixels of each edge pixel), spread from the edge over the frame. A mask
    /// across a continuous surface (the depth region of a tunnel's floor) is no step there, and aligning the
    /// floor's depth to it tore the floor along the band; a phone's soft halo still steps at the matte's edge.
    static func edgeSteps(_ depth: [Float], inside: [Bool], width w: Int, height h: Int, reach: Int = 2) -> [Float]? {
        let n = w * h
        let farOutside = SlidingMax.square((0..<n).map { inside[$0] ? -Float.infinity : depth[$0] }, width: w, height: h, radius: reach)
        let nearInside = SlidingMax.square((0..<n).map { inside[$0] ? -depth[$0] : -Float.infinity }, width: w, height: h, radius: reach)
        var values = [Float](repeating: 0, count: n), weights = [Float](repeating: 0, count: n)
        for i in 0..<n where inside[i] && farOutside[i].isFinite && nearInside[i].isFinite && nearInside[i] < 0 {
            values[i] = farOutside[i] / -nearInside[i]
            weights[i] = 1
        }
        guard weights.contains(1) else { return nil }
        return PushPull.fill(colors: values, weights: weights, channels: 1, width: w, height: h)
    }
}
