import DepthbookEngine

/// The matte's subject box in normalised frame coordinates, from the matte as measured (native, or 1600 px wide).
func subjectBox(_ matte: Node, effect: String, _ c: EffectContext) throws -> SubjectBounds {
    let buffer = try c.measured(matte)
    guard let box = SubjectBounds.of(buffer) else {
        throw EffectError.badInput(effect: effect, message: "the matte is empty: there is no subject to move")
    }
    let w = Double(buffer.width), h = Double(buffer.height)
    return SubjectBounds(minX: box.minX / w, minY: box.minY / h, maxX: box.maxX / w, maxY: box.maxY / h)
}

/// What the subject covers, filled from around it: the plate Big Head and Marching draw over.
struct FillBehindSubjectEffect: Effect {
    static let grow = Param.number("grow", "Grow", 0...200, default: 24, step: 1, unit: "px",
            doc: "Full-resolution pixels the hole is grown beyond the matte so no hair fringe is left behind.")
    static let description = EffectDescription(
        id: "fillBehindSubject", title: "Fill behind the subject",
        summary: "Remove the matted subject and fill the area from the surrounding background (push-pull inpainting).",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)],
        parameters: [grow.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let node = try Node(InpaintFilter(grow: c.nativePixels(p[Self.grow], for: image)), [image, try inputs.node("matte")])
        return BuiltNode(node, role: .image)
    }
}

/// Big Head's first step: the subject scaled about its anchor (`anchor(of:)`) over the filled plate.
struct ScaleSubjectEffect: Effect {
    static let output = Param.choice("output", "Show", ["composite", "plate"], default: "composite",
            doc: "The result, or the plate behind the scaled subject (the photo with the old subject filled in).")
    static let description = EffectDescription(
        id: "scaleSubject", title: "Scale the subject",
        summary: "Make the matted subject bigger or smaller, anchored at its base (made bigger, at its face when the frame cuts it off below; made smaller, its body still reaches the frame's edges); what it uncovers is filled from around it.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)],
        parameters: scaleParameters + [output.row])

    static let scale = Param.number("scale", "Scale", 0.5...2, default: 1.3, step: 0.01, doc: "Subject size relative to the original (1 leaves the photo unchanged).")
    /// The plate's own margin (`FillBehindSubjectEffect.grow`), named for what it does here.
    static let grow = FillBehindSubjectEffect.grow.renamed("grow", "Fill margin", doc: "How far beyond the matte the fill reaches.")
    static let scaleParameters: [EffectParameter] = [scale.row, grow.row]

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let output: SubjectScaleFilter.Output = p[Self.output] == "plate" ? .plate : .composite
        let node = try scaled(image: try inputs.node("image"), matte: try inputs.node("matte"), scale: p[Self.scale],
                              grow: p[Self.grow], output: output, c)
        return BuiltNode(node, role: .image)
    }

    static func scaled(image: Node, matte: Node, scale: Double, grow: Double, output: SubjectScaleFilter.Output,
                       _ c: EffectContext) throws -> Node {
        let box = try subjectBox(matte, effect: description.id, c)
        let anchor = anchor(of: box, scale: scale, c)
        // The matte output never reads the fill: skip the inpainting for it.
        let fill = output == .matte ? image : try Node(InpaintFilter(grow: c.nativePixels(grow, for: image)), [image, matte])
        return try Node(SubjectScaleFilter(scale: scale, anchorX: anchor.x, anchorY: anchor.y, output: output,
                                           taper: taper(of: box, scale: scale, c)), [image, matte, fill])
    }

    /// The point the subject is scaled about. A subject standing in the frame scales about its base, so it stays
    /// on its ground. One the frame's bottom edge cuts (a portrait, a selfie) has no ground in view: made bigger,
    /// it scales about its face when the photo has one inside the subject (named by the file or found in the
    /// picture), so the face grows where it is instead of rising out of the frame; made smaller, about its base,
    /// so its body still runs out of the frame's bottom edge (about the face, the torso shrank into a cut-out
    /// floating above the plate).
    static func anchor(of box: SubjectBounds, scale: Double, _ c: EffectContext) -> (x: Double, y: Double) {
        let cutByTheFrame = box.maxY >= 0.98
        guard scale > 1, cutByTheFrame, let face = largestFaceCentre(in: box, c) else { return box.base }
        return face
    }

    /// The centre of the largest face (named by the file or found in the picture) whose centre lies in `box`.
    static func largestFaceCentre(in box: SubjectBounds, _ c: EffectContext) -> (x: Double, y: Double)? {
        DepthSupport.faces(c)
            .map { (x: $0.x + $0.width / 2, y: $0.y + $0.height / 2, area: $0.width * $0.height) }
            .filter { box.minX <= $0.x && $0.x <= box.maxX && box.minY <= $0.y && $0.y <= box.maxY }
            .max { $0.area < $1.area }
            .map { (x: $0.x, y: $0.y) }
    }

    /// Made smaller, a subject the frame cuts off below keeps its body on the frame's edges: the scale eases in
    /// from the bottom edge up to the face's centre (the largest face inside the subject), or half the subject's
    /// height without one. Scaled as a whole, the body was cut straight at both sides with a flat fill in each
    /// bottom corner. Frame heights; 0 (scale uniformly) for a subject standing in the frame or made bigger.
    static func taper(of box: SubjectBounds, scale: Double, _ c: EffectContext) -> Double {
        guard scale < 1, box.maxY >= 0.98 else { return 0 }
        if let face = largestFaceCentre(in: box, c) { return max(0.05, box.maxY - face.y) }
        return (box.maxY - box.minY) / 2
    }
}

/// The matte moved with the subject: where the scaled subject now is (the mask of Big Head's last step).
struct ScaledMatteEffect: Effect {
    static let description = EffectDescription(
        id: "scaledMatte", title: "Scaled matte",
        summary: "The portrait matte scaled with the subject about its anchor: white where the subject now is.",
        output: .plane, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)],
        parameters: [scale.row])

    static let scale = ScaleSubjectEffect.scale

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let node = try ScaleSubjectEffect.scaled(image: try inputs.node("image"), matte: try inputs.node("matte"),
                                                 scale: p[Self.scale], grow: 0, output: .matte, c)
        return BuiltNode(node, role: .mask)
    }
}

/// Big Head, whole: scale the subject, then the pseudo depth of field of the demo (contrast on the subject,
/// blur on the background).
struct BigHeadEffect: Effect {
    static let scale = ScaleSubjectEffect.scale
    static let grow = ScaleSubjectEffect.grow
    static let contrast = Param.number("contrast", "Subject contrast", 0.5...2, default: 1.15, step: 0.01, doc: "Contrast of the subject (1 leaves it).")
    static let blur = Param.number("blur", "Background blur", 0...200, default: 16, step: 0.5, unit: "px", doc: "Gaussian blur of the background (0 leaves it sharp).")
    static let description = EffectDescription(
        id: "bigHead", title: "Big Head",
        summary: "Resize the matted subject against the background, then pop it: more contrast in front, blur behind.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)],
        parameters: [scale.row, grow.row, contrast.row, blur.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image"), matte = try inputs.node("matte")
        let scale = p[Self.scale], grow = p[Self.grow]
        let composite = try ScaleSubjectEffect.scaled(image: image, matte: matte, scale: scale, grow: grow, output: .composite, c)
        let contrast = p[Self.contrast], blur = p[Self.blur]
        let notes = SubjectPlane.noOneNotes(c, effect: description.title)
        if contrast == 1 && blur == 0 { return BuiltNode(composite, role: .image, notes: notes) }
        let newMatte = try ScaleSubjectEffect.scaled(image: image, matte: matte, scale: scale, grow: grow, output: .matte, c)
        let plate = try ScaleSubjectEffect.scaled(image: image, matte: matte, scale: scale, grow: grow, output: .plate, c)
        let front = try Primitives.colorControls(composite, saturation: 1, contrast: contrast, brightness: 0)
        let back = try Primitives.gaussianBlur(plate, sigma: c.nativePixels(blur, for: plate))
        return BuiltNode(try Primitives.blend(front, back, mask: newMatte), role: .image, notes: notes)
    }
}

/// Marching: the subject repeated in a line, receding or advancing.
struct MarchingEffect: Effect {
    static let description = EffectDescription(
        id: "marching", title: "Marching",
        summary: "Copies of the matted subject stitched together in a line, drawn back to front.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)], parameters: parameters)

    static let count = Param.number("count", "Copies", 1...120, default: 6, step: 1, doc: "Subjects in the picture, the original included.")
    static let spacing = Param.number("spacing", "Spacing", -0.5...0.5, default: 0.16, step: 0.005, unit: "frame widths",
            doc: "Sideways step from one copy to the next (negative marches left).")
    static let scaleStep = Param.number("scaleStep", "Scale step", 0.5...1.5, default: 0.82, step: 0.01,
            doc: "Each copy's size relative to the previous: below 1 recedes, above 1 advances.")
    static let horizon = Param.number("horizon", "Horizon", 0...1, default: 0.4, step: 0.01,
            doc: "Height of the horizon (fraction of the frame from the top) that receding copies approach.")
    static let parameters: [EffectParameter] = [count.row, spacing.row, scaleStep.row, horizon.row]

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try node(inputs, p, c, output: .composite), role: .image, notes: SubjectPlane.noOneNotes(c, effect: description.title))
    }

    static func node(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext, output: MarchingFilter.Output) throws -> Node {
        let image = try inputs.node("image"), matte = try inputs.node("matte")
        let box = try subjectBox(matte, effect: description.id, c)
        let filter = MarchingFilter(count: p.int(Self.count), spacing: p[Self.spacing], scaleStep: p[Self.scaleStep],
                                    horizon: p[Self.horizon], subject: box, output: output)
        return try Node(filter, [image, matte])
    }
}

/// Where Marching's copies are: their coverage as a mask (one blob per copy when they do not overlap).
struct MarchingCoverageEffect: Effect {
    static let description = EffectDescription(
        id: "marchingCoverage", title: "Marching coverage",
        summary: "The copies' coverage as a mask: white wherever some copy of the subject is.",
        output: .plane, inputs: [EffectInput("image", .image), EffectInput("matte", .plane)], parameters: MarchingEffect.parameters)

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        BuiltNode(try MarchingEffect.node(inputs, p, c, output: .coverage), role: .mask)
    }
}
