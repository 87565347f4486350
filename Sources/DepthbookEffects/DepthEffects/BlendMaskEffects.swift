import DepthbookDocument
import DepthbookEngine

/// The 2017 background-effects blend mask: tap a point and the threshold becomes the largest normalised
/// disparity in a small area around it (CIAreaMinMaxRed on the clamped disparity), so what was tapped is
/// foreground; the ramp's width (the pinch) sets how wide the blend below it is; CIColorMatrix + CIColorClamp
/// map normalised disparity to the 0...1 mask. Made at the depth map's resolution, then resized to the image.
///
/// Until the user taps, the threshold is the far side of the whole subject (`photo.subject`), not the face's
/// nearest point: with the face's, a person's shoulders or a statue's body fell into the ramp and lost
/// their colour (on the shared selfies only 24-64 % of the portrait matte stayed fully in front).
struct TapBlendMaskEffect: Effect {
    static let description = EffectDescription(
        id: "tapBlendMask", title: "Blend mask (tap threshold)",
        summary: "1 for disparities at or above the tapped area's maximum, a linear ramp of the pinched width below, 0 beyond.",
        output: .plane, inputs: [EffectInput("disparity", .plane)], parameters: parameters)

    static let point = Param.point("point", "Tap", default: (0.5, 0.5),
            doc: "Where the user tapped (normalised image coordinates): the threshold is read there. Until tapped, the whole subject is in front.").chosenFromPhoto()
    static let tapSize = Param.number("tapSize", "Tap area", 0...50, default: 4, step: 1, unit: "px",
            doc: "Half-size of the square read around the tap, in depth-map pixels.")
    static let width = Param.number("width", "Ramp width", 0...1, default: 0.1, step: 0.01,
            doc: "Normalised disparity span of the blend below the threshold (the pinch); 0 is a hard cut.")
    static let parameters: [EffectParameter] = [point.row, tapSize.row, width.row]

    /// The mask node at the image's size and the threshold in disparity units.
    static func mask(_ disparity: Node, _ p: ResolvedParameters, _ c: EffectContext) throws -> (Node, Double, (x: Double, y: Double)?) {
        let range = try DepthSupport.range(disparity, c, effect: description.id)
        let chosen = p.isGiven(Self.point) ? nil : try SubjectCut.subjectPoint(c)
        let point = chosen ?? p[Self.point] ?? (0.5, 0.5)
        guard let tapped = AreaMinMax.around(try c.native(disparity), x: point.x, y: point.y, radius: p.int(Self.tapSize)) else {
            throw EffectError.badInput(effect: description.id, message: "the tapped area holds only holes; tap somewhere else")
        }
        let cut = chosen == nil ? Double(tapped.upperBound) : try SubjectCut.subjectFarSide(c) ?? Double(tapped.upperBound)
        let span = Double(range.upperBound - range.lowerBound)
        let threshold = span > 0 ? (cut - Double(range.lowerBound)) / span : 0
        let ramp = try disparity.applying(DisparityRamp(threshold: min(1, max(0, threshold)), width: p[Self.width],
                                                        low: Double(range.lowerBound), high: Double(range.upperBound)))
        // Where the ramp keeps the learned subject, the subject's own edge (`SubjectEdge`).
        let mask = try SubjectEdge.refined(ramp, enlarged: try Primitives.resample(ramp, to: PixelSize(width: c.photo.width, height: c.photo.height), .bilinear), c)
        return (mask, cut, chosen)
    }

    /// The tap the effect picked from the photo, for the page's control.
    static func chosen(_ point: (x: Double, y: Double)?) -> [String: ParameterValue] { Self.point.picked(point) }

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let disparity = try DepthSupport.disparity(try inputs.built("disparity"), c, effect: description.id)
        let (mask, cut, point) = try mask(disparity, p, c)
        return BuiltNode(mask, role: .mask, marker: cut, chosen: chosen(point))
    }
}

/// The 2017 background effects: the tapped blend mask gives the background a filter — desaturate, Noir, a flat
/// white fog, hexagonal pixellate or motion blur — and keeps the foreground as it is or fades it (the 2017
/// capture talk's Noir background behind a Fade foreground).
struct BackgroundEffect: Effect {
    static let filter = Param.choice("filter", "Background filter", ["desaturate", "noir", "fog", "hexagonalPixellate", "motionBlur"], default: "desaturate",
            doc: "What the background gets: grey, Noir's contrasty black and white, flat white fog, a honeycomb, or a streak of movement.")
    static let foreground = Param.choice("foreground", "Foreground", ["unchanged", "fade"], default: "unchanged",
            doc: "What the foreground gets: nothing, or Core Image's Fade (softer colour, lifted blacks).")
    static let amount = Param.number("amount", "Amount", 0...200, default: 40, step: 1, unit: "px",
            doc: "Cell size of the honeycomb or half-length of the streak, full-resolution pixels.")
    static let angle = Param.number("angle", "Streak angle", -180...180, default: 0, step: 1, unit: "°", doc: "Direction of the motion blur.")
    static let description = EffectDescription(
        id: "backgroundEffect", title: "Background effect",
        summary: "A filter on the background only, through the tapped blend mask (CIBlendWithMask).",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("disparity", .plane)],
        parameters: TapBlendMaskEffect.parameters + [filter.row, foreground.row, amount.row, angle.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let disparity = try DepthSupport.disparity(try inputs.built("disparity"), c, effect: description.id)
        let maskParameters = ResolvedParameters(p.subset(TapBlendMaskEffect.description), for: TapBlendMaskEffect.description)
        let (mask, cut, point) = try TapBlendMaskEffect.mask(disparity, maskParameters, c)
        let amount = c.nativePixels(p[Self.amount], for: image)
        let background: Node
        switch p[Self.filter] {
        case "noir": background = try Primitives.noir(image)
        case "fog": background = try Primitives.colorMatrix(image, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
        case "hexagonalPixellate": background = amount < 1 ? image : try image.applying(HexagonalPixellate(scale: min(1000, amount)))
        case "motionBlur": background = try image.applying(MotionBlur(radius: min(200, amount), angle: p[Self.angle]))
        default: background = try Primitives.colorControls(image, saturation: 0, contrast: 1, brightness: 0)
        }
        let foreground = p[Self.foreground] == "fade" ? try image.applying(PhotoEffect(.fade)) : image
        return BuiltNode(try Primitives.blend(foreground, background, mask: mask), role: .image, marker: cut,
                         chosen: TapBlendMaskEffect.chosen(point))
    }
}

/// Darkening by depth (2017): each pixel scaled by its normalised disparity raised to a power. 0 is no
/// effect; 1 scales by the inverse of depth; higher powers send the background to black.
struct DarkenByDisparityEffect: Effect {
    static let power = Param.number("power", "Power", 0...10, default: 2, step: 0.1,
            doc: "Exponent of the normalised disparity: 0 is no effect, higher darkens the background faster.")
    static let description = EffectDescription(
        id: "darkenByDisparity", title: "Darken by disparity",
        summary: "Pixels × normalised disparity^power: the background fades to black (a custom CIColorKernel).",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("disparity", .plane)],
        parameters: [power.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let power = p[Self.power]
        if power == 0 { return BuiltNode(image, role: .image) }
        let disparity = try DepthSupport.disparity(try inputs.built("disparity"), c, effect: description.id)
        let range = try DepthSupport.range(disparity, c, effect: description.id)
        // Normalised so the subject is at 1, not the nearest thing in the frame: a rear-camera photo's nearest
        // disparity is often the floor or a cushion in front of the subject, and n^power would darken the
        // subject with the background (the pug went 98 % black). Anything nearer than the subject stays lit.
        var high = Double(range.upperBound)
        if disparity.key == (try? Primitives.photo(c, .disparity))?.key, let subject = try SubjectCut.subjectDisparity(c),
           subject > Double(range.lowerBound) {
            high = min(high, subject)
        }
        let node = try Node(DarkenByDisparity(power: power, low: Double(range.lowerBound), high: high), [image, disparity])
        return BuiltNode(node, role: .image)
    }
}
