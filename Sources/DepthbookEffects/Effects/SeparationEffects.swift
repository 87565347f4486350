import DepthbookDocument
import DepthbookEngine

/// The 2018 demo's first effect, whole: a depth-threshold mask; a Noir foreground with exposure, slight
/// desaturation and more contrast; a darker copy of the image behind; blended through the mask.
struct DepthThresholdNoirEffect: Effect {
    static let exposure = Param.number("exposure", "Foreground exposure", -3...3, default: 0.3, step: 0.05, unit: "EV", doc: "Exposure of the Noir foreground: a little brighter, as in the talk.")
    static let saturation = Param.number("saturation", "Foreground saturation", 0...2, default: 0.9, step: 0.01, doc: "Slight desaturation after Noir.")
    static let contrast = Param.number("contrast", "Foreground contrast", 0.25...2, default: 1.15, step: 0.01, doc: "Extra contrast on the foreground.")
    static let background = Param.number("background", "Background exposure", -5...0, default: -2, step: 0.05, unit: "EV", doc: "How much darker the background is.")
    static let description = EffectDescription(
        id: "depthThresholdNoir", title: "Depth threshold (Noir)",
        summary: "Noir foreground cut out by thresholded depth, over a darker copy of the photo.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("disparity", .plane)],
        parameters: DepthThresholdEffect.description.parameters + [exposure.row, saturation.row, contrast.row, background.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let mask = try DepthThresholdEffect.build(
            inputs, ResolvedParameters(p.subset(DepthThresholdEffect.description), for: DepthThresholdEffect.description), c)
        var foreground = try Primitives.noir(image)
        foreground = try Primitives.exposure(foreground, ev: p[Self.exposure])
        foreground = try Primitives.colorControls(foreground, saturation: p[Self.saturation], contrast: p[Self.contrast], brightness: 0)
        let background = try Primitives.exposure(image, ev: p[Self.background])
        return BuiltNode(try Primitives.blend(foreground, background, mask: mask.node), role: .image, marker: mask.marker,
                         chosen: mask.chosen)
    }
}

/// The same separation with the portrait effects matte: a livelier foreground over a disc-blurred, darkened
/// background that stays faintly visible.
struct MatteSeparationEffect: Effect {
    static let saturation = Param.number("saturation", "Foreground saturation", 0...2, default: 0.85, step: 0.01, doc: "Slight desaturation of the subject.")
    static let contrast = Param.number("contrast", "Foreground contrast", 0.25...2, default: 1.15, step: 0.01, doc: "More contrast on the subject.")
    static let vibrance = Param.number("vibrance", "Foreground vibrance", -1...1, default: 0.35, step: 0.01, doc: "Richer muted colours on the subject.")
    static let blur = Param.number("blur", "Background blur", 0...200, default: 40, step: 1, unit: "px", doc: "Disc blur radius of the background, full-resolution pixels.")
    static let background = Param.number("background", "Background exposure", -6...0, default: -2, step: 0.05, unit: "EV", doc: "Darkening of the background; it stays faintly visible.")
    static let decontaminate = Param.bool("decontaminate", "Subject's own colour at the edge", default: true, doc: "Treat the subject's own colour at the matte's soft edge (matteForeground) and blend it through the matte fitted to the photo's edge (fittedMatte), not the wall behind mixed into it: no light rim. Off is the talk's recipe.")
    static let description = EffectDescription(
        id: "matteSeparation", title: "Matte separation",
        summary: "Foreground through the portrait matte, slightly desaturated with contrast and vibrance, over a dark bokeh background.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)],
        parameters: [saturation.row, contrast.row, vibrance.row, blur.row, background.row, decontaminate.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image"), matte = try inputs.node("matte")
        let subject = p[Self.decontaminate] ? try Primitives.matteForeground(image, matte: matte) : image
        let mask = p[Self.decontaminate] ? try Primitives.fittedMatte(image, matte: matte) : matte
        var foreground = try Primitives.colorControls(subject, saturation: p[Self.saturation], contrast: p[Self.contrast], brightness: 0)
        foreground = try Primitives.vibrance(foreground, amount: p[Self.vibrance])
        var background = try Primitives.discBlur(image, radius: c.nativePixels(p[Self.blur], for: image))
        background = try Primitives.exposure(background, ev: p[Self.background])
        return BuiltNode(try Primitives.blend(foreground, background, mask: mask), role: .image)
    }
}

/// The subject's own colour at a matte's soft edge: the photo everywhere else. A step to take before treating
/// the subject and blending it back through the fitted matte (`FittedMatteEffect`).
struct MatteForegroundEffect: Effect {
    static let description = EffectDescription(
        id: "matteForeground", title: "Subject's own colour",
        summary: "The photo with the background's light taken out of the subject's soft edge (colour decontamination), to treat the subject before blending it back through the fitted matte.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.matteForeground(try inputs.node("image"), matte: try inputs.node("matte")), role: .image)
    }
}

/// The matte fitted to the photo's edge where it is soft or a pixel or two off (each pixel's α read from its colour
/// between the background and the subject nearby): the mask to blend `matteForeground`'s colour through.
struct FittedMatteEffect: Effect {
    static let description = EffectDescription(
        id: "fittedMatte", title: "Matte fitted to the photo",
        summary: "The matte with its soft edge read from the photo's colours between the subject and the background behind it (where they differ), so the subject's own colour blends in where the photo shows it.",
        output: .plane, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.fittedMatte(try inputs.node("image"), matte: try inputs.node("matte")), role: .mask)
    }
}

extension ResolvedParameters {
    /// The values whose names appear in `description` (to build an effect from a bigger one's parameters).
    func subset(_ description: EffectDescription) -> [String: ParameterValue] {
        values.filter { name, _ in given.contains(name) && description.parameter(name) != nil }
    }
}
