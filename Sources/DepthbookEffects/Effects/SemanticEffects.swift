import DepthbookEngine

// The 2019 semantic-matte recipes: an adjusted image blended over the base through one matte. Where the
// matte is 0 the base comes back unchanged, whatever the adjustment.

/// The "makeup" recipe from the slides (maximumComponent of the base, gamma 0.5) as the skin's new brightness,
/// on the skin's own colour, blended through the skin matte.
struct MakeupEffect: Effect {
    static let gamma = Param.number("gamma", "Gamma", 0.1...3, default: 0.5, step: 0.05, doc: "Power applied to the maximum component (0.5 brightens, as in the talk).")
    static let strength = Param.number("strength", "Strength", 0...1, default: 0.35, step: 0.01,
            doc: "How much of the made-up skin replaces the base (1: the skin at the talk's recipe's brightness).")
    static let description = EffectDescription(
        id: "makeup", title: "Makeup (skin)",
        summary: "The talk's recipe (maximum component, gamma 0.5) as the skin's new light, on its own colour, through the skin matte.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("skin", .plane)],
        parameters: [gamma.row, strength.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let base = try inputs.node("image")
        let recipe = try Primitives.gamma(try Primitives.maximumComponent(base), p[Self.gamma])
        // The recipe's result is grey (every channel the maximum): blended as it is it greys the skin. Only its
        // light is taken, on the skin's own colour, so the skin is brighter and more even with the same hue.
        let makeup = try Node(LumaTransfer(), [base, recipe])
        return BuiltNode(try blendThrough(makeup, base, try inputs.node("skin"), strength: p[Self.strength]), role: .image)
    }
}

/// Recolours hair, keeping its light and shade (a luma-preserving tint through the hair matte).
struct HairColorEffect: Effect {
    static let colors: [String: (Double, Double, Double)] = [
        "auburn": (0.65, 0.2, 0.1), "copper": (0.85, 0.45, 0.2), "platinum": (0.95, 0.92, 0.85),
        "blue": (0.2, 0.35, 0.9), "pink": (0.95, 0.4, 0.65), "black": (0.12, 0.1, 0.1),
    ]

    static let color = Param.choice("color", "Colour", colors.keys.sorted(), default: "auburn", doc: "The new hair colour.")
    static let strength = Param.number("strength", "Strength", 0...1, default: 0.7, step: 0.01, doc: "How far towards the new colour.")
    static let description = EffectDescription(
        id: "hairColor", title: "Hair colour",
        summary: "Tint the hair to a new colour, keeping its highlights and shadows, through the hair matte.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("hair", .plane)],
        parameters: [color.row, strength.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let base = try inputs.node("image")
        let tint = colors[p[Self.color]] ?? (0.65, 0.2, 0.1)
        // out_c = luma · tint_c / luma(tint): the tint's hue at the hair's own brightness (scaled to keep range).
        let tintLuma = max(0.05, Luma.rec601(tint.0, tint.1, tint.2))
        let boost = 1.6
        var m = [Double]()
        for t in [tint.0, tint.1, tint.2] {
            let k = min(boost, t / tintLuma)
            m += Luma.weights.map { $0 * k } + [0]
        }
        let tinted = try Primitives.colorMatrix(base, m)
        return BuiltNode(try blendThrough(tinted, base, try inputs.node("hair"), strength: p[Self.strength]), role: .image)
    }
}

/// Whitens teeth: takes the yellow out and brightens a little, through the teeth matte.
struct TeethWhiteningEffect: Effect {
    static let amount = Param.number("amount", "Amount", 0...1, default: 0.6, step: 0.01, doc: "0 leaves the teeth; 1 makes them neutral and brighter.")
    static let description = EffectDescription(
        id: "teethWhitening", title: "Teeth whitening",
        summary: "Desaturate and brighten the teeth through the teeth matte.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("teeth", .plane)],
        parameters: [amount.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let base = try inputs.node("image"), a = p[Self.amount]
        let white = try Primitives.colorControls(base, saturation: 1 - 0.8 * a, contrast: 1, brightness: 0.12 * a)
        return BuiltNode(try blendThrough(white, base, try inputs.node("teeth"), strength: 1), role: .image)
    }
}

/// Tints the lenses and frames of glasses, through the glasses matte.
struct GlassesTintEffect: Effect {
    static let colors: [String: (Double, Double, Double)] = [
        "amber": (1.0, 0.7, 0.3), "blue": (0.4, 0.6, 1.0), "green": (0.45, 0.85, 0.5),
        "grey": (0.45, 0.45, 0.45), "rose": (1.0, 0.55, 0.65),
    ]

    static let color = Param.choice("color", "Tint", colors.keys.sorted(), default: "amber", doc: "The tint's colour.")
    static let strength = Param.number("strength", "Strength", 0...1, default: 0.6, step: 0.01, doc: "How strongly the glasses are tinted.")
    static let description = EffectDescription(
        id: "glassesTint", title: "Glasses tint",
        summary: "Tint the glasses (lenses and frames) through the glasses matte.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("glasses", .plane)],
        parameters: [color.row, strength.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let base = try inputs.node("image")
        let t = colors[p[Self.color]] ?? (1, 0.7, 0.3)
        let tinted = try Primitives.colorMatrix(base, [t.0, 0, 0, 0, 0, t.1, 0, 0, 0, 0, t.2, 0])
        return BuiltNode(try blendThrough(tinted, base, try inputs.node("glasses"), strength: p[Self.strength]), role: .image)
    }
}

/// `adjusted` over `base` through `matte` scaled by `strength` (the slides' blendWithMask step).
func blendThrough(_ adjusted: Node, _ base: Node, _ matte: Node, strength: Double) throws -> Node {
    let mask = strength >= 1 ? matte : try Primitives.scaleMask(matte, by: strength)
    return try Primitives.blend(adjusted, base, mask: mask)
}
