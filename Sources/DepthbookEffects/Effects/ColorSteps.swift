import DepthbookEngine

// Image steps the demos chain cell by cell: Core Image's photo effects, colour controls, blurs and blends.

/// Core Image's Photo Effect Noir: grey with a contrast boost.
struct NoirEffect: Effect {
    static let description = EffectDescription(
        id: "noir", title: "Noir", summary: "Black and white with extra contrast (CIPhotoEffectNoir).",
        output: .image, inputs: [EffectInput("image", .image)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.noir(try inputs.node("image")), role: .image)
    }
}

/// Exposure in stops, in linear light (CIExposureAdjust).
struct ExposureEffect: Effect {
    static let ev = Param.number("ev", "Exposure", -5...5, default: 0, step: 0.05, unit: "EV", doc: "Stops: +1 doubles the light, −1 halves it.")
    static let description = EffectDescription(
        id: "exposure", title: "Exposure", summary: "Brighten or darken by stops of exposure, in linear light.",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [ev.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.exposure(try inputs.node("image"), ev: p[Self.ev]), role: .image)
    }
}

/// Saturation, contrast and brightness in one colour matrix (CIColorControls).
struct ColorControlsEffect: Effect {
    static let saturation = Param.number("saturation", "Saturation", 0...2, default: 1, step: 0.01, doc: "0 is grey, 1 unchanged, 2 doubly vivid.")
    static let contrast = Param.number("contrast", "Contrast", 0.25...2, default: 1, step: 0.01, doc: "Spread about mid-grey; 1 is unchanged.")
    static let brightness = Param.number("brightness", "Brightness", -0.5...0.5, default: 0, step: 0.01, doc: "Added to every channel.")
    static let description = EffectDescription(
        id: "colorControls", title: "Colour controls",
        summary: "Saturation about the luma, contrast about mid-grey, and brightness (CIColorControls).",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [saturation.row, contrast.row, brightness.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let node = try Primitives.colorControls(try inputs.node("image"), saturation: p[Self.saturation],
                                                contrast: p[Self.contrast], brightness: p[Self.brightness])
        return BuiltNode(node, role: .image)
    }
}

/// Saturates the muted colours more than the vivid ones (CIVibrance).
struct VibranceEffect: Effect {
    static let amount = Param.number("amount", "Amount", -1...1, default: 0, step: 0.01, doc: "Positive makes muted colours richer; 0 is unchanged.")
    static let description = EffectDescription(
        id: "vibrance", title: "Vibrance", summary: "Boost muted colours more than vivid ones (CIVibrance).",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [amount.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.vibrance(try inputs.node("image"), amount: p[Self.amount]), role: .image)
    }
}

/// A true disc (bokeh) blur (CIDiscBlur).
struct DiscBlurEffect: Effect {
    static let radius = Param.number("radius", "Radius", 0...200, default: 40, step: 1, unit: "px", doc: "Disc radius in full-resolution pixels.")
    static let description = EffectDescription(
        id: "discBlur", title: "Disc blur", summary: "Out-of-focus blur with a flat disc kernel, like a lens (CIDiscBlur).",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [radius.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        return BuiltNode(try Primitives.discBlur(image, radius: c.nativePixels(p[Self.radius], for: image)), role: .image)
    }
}

/// A Gaussian blur of the image (CIGaussianBlur over a clamped image).
struct GaussianBlurEffect: Effect {
    static let radius = Param.number("radius", "Radius", 0...200, default: 10, step: 0.5, unit: "px", doc: "Gaussian sigma in full-resolution pixels.")
    static let description = EffectDescription(
        id: "gaussianBlur", title: "Gaussian blur", summary: "Soft blur of the image, edges clamped (CIGaussianBlur).",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [radius.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        return BuiltNode(try Primitives.gaussianBlur(image, sigma: c.nativePixels(p[Self.radius], for: image)), role: .image)
    }
}

/// Each channel to a power (CIGammaAdjust): below 1 brightens the shadows.
struct GammaEffect: Effect {
    static let power = Param.number("power", "Power", 0.1...5, default: 1, step: 0.05, doc: "Exponent on 0...1 values; 1 is unchanged.")
    static let description = EffectDescription(
        id: "gamma", title: "Gamma", summary: "Each channel raised to a power (CIGammaAdjust); 0.5 lifts the shadows.",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [power.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.gamma(try inputs.node("image"), p[Self.power]), role: .image)
    }
}

/// max(r, g, b) in every channel (CIMaximumComponent): a bright grey.
struct MaximumComponentEffect: Effect {
    static let description = EffectDescription(
        id: "maximumComponent", title: "Maximum component",
        summary: "Grey image of each pixel's largest channel (CIMaximumComponent).",
        output: .image, inputs: [EffectInput("image", .image)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.maximumComponent(try inputs.node("image")), role: .image)
    }
}

/// foreground · mask + background · (1 − mask) (CIBlendWithMask); the mask is scaled to the image.
struct BlendWithMaskEffect: Effect {
    static let description = EffectDescription(
        id: "blendWithMask", title: "Blend with mask",
        summary: "Foreground where the mask is 1, background where it is 0, mixed in between (CIBlendWithMask).",
        output: .image,
        inputs: [EffectInput("foreground", .image), EffectInput("background", .image), EffectInput("mask", .plane)],
        parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let node = try Primitives.blend(try inputs.node("foreground"), try inputs.node("background"), mask: try inputs.node("mask"))
        return BuiltNode(node, role: .image)
    }
}

/// The image multiplied by a mask, over black: shows what a mask keeps.
struct ApplyMaskEffect: Effect {
    static let description = EffectDescription(
        id: "applyMask", title: "Apply mask", summary: "The image where the mask is 1, black where it is 0.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("mask", .plane)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let black = try Primitives.colorMatrix(image, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        return BuiltNode(try Primitives.blend(image, black, mask: try inputs.node("mask")), role: .image)
    }
}

/// A bundled background (generated by Depthbook), at the photo's size: Backdrop's new scenery.
struct BackgroundImageEffect: Effect {
    static let name = Param.choice("name", "Background", SampleLibrary.backgrounds.map(\.id), default: "mountains",
            doc: "Which bundled background to show.")
    static let description = EffectDescription(
        id: "backgroundImage", title: "Background image",
        summary: "One of Depthbook's bundled backgrounds, painted at the photo's shape and the size rendered.",
        output: .image, inputs: [],
        parameters: [name.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try Primitives.background(p[Self.name], context: c), role: .image)
    }
}
