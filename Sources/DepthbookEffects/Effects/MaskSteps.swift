import DepthbookDocument
import DepthbookEngine

// The mask-making steps of the 2018 notebook demo, one cell each: resize, threshold at a percentile,
// close, feather. Spatial sizes are in full-resolution image pixels ("px"), whatever plane they act on.

/// Resamples a plane (depth, a matte) to the image's resolution, as the demo does before thresholding. A mask
/// made at the depth map's resolution is best brought up with `edges`: fitted to the photo's own edges, and given
/// the learned subject's edge where the photo has one (`SubjectEdge`).
struct ResizeEffect: Effect {
    static let method = Param.choice("method", "Method", ["nearest", "bilinear", "bicubic", "lanczos", "edges"], default: "bilinear",
            doc: "Interpolation: nearest shows the depth map's blocks, the others smooth them; edges fits a mask to the photo's own edges (guided filter).")
    static let description = EffectDescription(
        id: "resize", title: "Resize to the image",
        summary: "Resample a plane (depth, matte) to the image's resolution so the two line up pixel for pixel.",
        output: .plane, inputs: [EffectInput("input", .plane)],
        parameters: [method.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let input = try inputs.built("input")
        if p[Self.method] == "edges" { return BuiltNode(try SubjectEdge.fitted(input.node, c), role: input.role) }
        let method = ResamplingMethod(rawValue: p[Self.method]) ?? .bilinear
        let node = try Primitives.resample(input.node, to: PixelSize(width: c.photo.width, height: c.photo.height), method)
        return BuiltNode(node, role: input.role)
    }
}

/// The nearest part of the plane becomes 1, the rest 0: the cut keeps `percentile` per cent of the valid
/// samples (the near side: high disparity, or low metric depth). Higher keeps more, as the 2018 demo's slider
/// does ("the higher it is the less aggressive I am on clipping the foreground"). Left out of the cell, the
/// cut is found from the photo (`SubjectCut`) and reported as the slider's value.
struct ThresholdEffect: Effect {
    static let percentile = Param.number("percentile", "Percentile", 0...100, default: 40, step: 0.5, unit: "%",
            doc: "How much of the depth map counts as near: higher keeps more. Until moved, the valley between subject and background.").chosenFromPhoto()
    static let description = EffectDescription(
        id: "threshold", title: "Threshold at a percentile",
        summary: "Cut the plane at a percentile of its histogram: the nearer side becomes 1, the rest 0.",
        output: .plane, inputs: [EffectInput("input", .plane)],
        parameters: [percentile.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let input = try inputs.built("input")
        let isDepth = input.role == .depth(.depth)
        let kept: Double
        var chosen = [String: ParameterValue]()
        if p.isGiven(Self.percentile) {
            kept = p[Self.percentile]
        } else {
            // The cut is found on disparity (near is high) whatever the input; the share it keeps is the same
            // for metric depth.
            let disparity = isDepth ? try Primitives.photo(c, .disparity) : input.node
            let sorted = c.statistics.sortedValid(disparity.key, try c.native(disparity))
            guard let cut = try SubjectCut.cut(c, plane: disparity, sorted: sorted) else {
                throw EffectError.badInput(effect: description.id, message: "the plane has no valid values to threshold")
            }
            kept = (SubjectCut.keptPercent(sortedValid: sorted, cut: cut) * 2).rounded() / 2
            chosen = Self.percentile.picked(kept)
        }
        guard let cut = try c.percentile(input.node, isDepth ? kept : 100 - kept) else {
            throw EffectError.badInput(effect: description.id, message: "the plane has no valid values to threshold")
        }
        let node = try Primitives.threshold(input.node, cut, keepBelow: isDepth)
        return BuiltNode(node, role: .mask, marker: cut, chosen: chosen)
    }
}

/// Morphological closing (dilate then erode) with a disc: fills the islands and notches of a mask.
struct ClosingEffect: Effect {
    static let radius = Param.number("radius", "Radius", 0...200, default: 20, step: 1, unit: "px",
            doc: "Disc radius in full-resolution pixels; too large swallows the subject's outline.")
    static let description = EffectDescription(
        id: "closing", title: "Morphological closing",
        summary: "Dilate then erode with a disc: closes holes and gaps smaller than the disc.",
        output: .plane, inputs: [EffectInput("mask", .plane)],
        parameters: [radius.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let mask = try inputs.built("mask")
        let radius = c.nativePixels(p[Self.radius], for: mask.node)
        return BuiltNode(try Primitives.closing(mask.node, radius: radius), role: mask.role)
    }
}

/// A Gaussian blur of the mask: a feathered, soft transition instead of a hard cut.
struct FeatherEffect: Effect {
    static let radius = Param.number("radius", "Radius", 0...200, default: 12, step: 0.5, unit: "px",
            doc: "Gaussian sigma in full-resolution pixels (0 keeps the hard edge).")
    static let edge = Param.choice("edge", "Soft edge", ["inside", "centred"], default: "inside",
            doc: "inside: the transition lies within the mask, so nothing of the foreground glows past its edge; centred: the blur spreads both ways, as in the talk.")
    static let description = EffectDescription(
        id: "feather", title: "Feather",
        summary: "Gaussian blur of a mask so the transition from foreground to background is soft.",
        output: .plane, inputs: [EffectInput("mask", .plane)],
        parameters: [radius.row, edge.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let mask = try inputs.built("mask")
        let sigma = c.nativePixels(p[Self.radius], for: mask.node)
        return BuiltNode(try Primitives.feather(mask.node, sigma: sigma, edge: .init(rawValue: p[Self.edge]) ?? .inside), role: .mask)
    }
}

/// Raises a mask to a power: above 1 narrows the foreground, below 1 widens it into a halo (Backdrop).
struct MaskGammaEffect: Effect {
    static let gamma = Param.number("gamma", "Gamma", 0.1...5, default: 1, step: 0.05, doc: "Exponent applied to the 0...1 mask.")
    static let description = EffectDescription(
        id: "maskGamma", title: "Mask gamma",
        summary: "Mask to a power: above 1 narrows the foreground, below 1 widens it (a halo).",
        output: .plane, inputs: [EffectInput("mask", .plane)],
        parameters: [gamma.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let mask = try inputs.built("mask")
        return BuiltNode(try Primitives.gamma(mask.node, p[Self.gamma]), role: .mask)
    }
}

/// The demo's depth mask in one step: threshold at a percentile, close, feather.
struct DepthThresholdEffect: Effect {
    static let closing = ClosingEffect.radius.renamed("closing", "Closing", doc: "Closing disc radius in full-resolution pixels.")
    static let feather = FeatherEffect.radius.renamed("feather", "Feather", doc: "Gaussian feather sigma in full-resolution pixels.")
    static let description = EffectDescription(
        id: "depthThreshold", title: "Depth threshold mask",
        summary: "Threshold the disparity at a percentile, close the islands, feather the edge: a foreground mask.",
        output: .plane, inputs: [EffectInput("disparity", .plane)],
        parameters: ThresholdEffect.description.parameters + [closing.row, feather.row, FeatherEffect.edge.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let cut = try ThresholdEffect.build(inputs.renamed(["input": "disparity"]),
                                            ResolvedParameters(p.subset(ThresholdEffect.description), for: ThresholdEffect.description), c)
        // Threshold and closing work at the depth map's resolution; the mask is then brought to the image's size
        // fitted to the photo's edges, and feathered there, so the feather is smooth at any render size.
        let closed = try Primitives.closing(cut.node, radius: c.nativePixels(p[Self.closing], for: cut.node))
        let resized = try SubjectEdge.fitted(closed, c)
        let feathered = try Primitives.feather(resized, sigma: c.nativePixels(p[Self.feather], for: resized),
                                               edge: .init(rawValue: p[FeatherEffect.edge]) ?? .inside)
        return BuiltNode(feathered, role: .mask, marker: cut.marker, chosen: cut.chosen)
    }
}

extension EffectInputs {
    /// The same nodes under other slot names (new name → existing name), for effects built from others.
    func renamed(_ map: [String: String]) -> EffectInputs {
        var slots = [String: BuiltNode]()
        for (new, old) in map { slots[new] = self.slots[old] }
        return EffectInputs(effect: effect, slots: slots)
    }
}
