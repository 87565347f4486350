import DepthbookEngine

/// Backdrop's foreground mask (2018, TrueDepth part): the depth at the face, a threshold a margin behind it
/// (25 cm in real units when the depth is absolute; a fraction of the face's disparity when only relative),
/// a Gaussian blur for the transition's slope and a gamma to narrow it (> 1) or widen it into a halo (< 1).
struct FaceDepthMaskEffect: Effect {
    static let description = EffectDescription(
        id: "faceDepthMask", title: "Face-depth mask",
        summary: "Everything nearer than the face plus a margin: blurred and gamma-adjusted, Backdrop's foreground.",
        output: .plane, inputs: [EffectInput("disparity", .plane)], parameters: parameters)

    static let source = Param.choice("source", "Subject depth from", ["auto", "face", "point", "nearest"], default: "auto",
            doc: "auto: the photo's face regions, else the clicked point, else the nearest large region.")
    static let point = Param.point("point", "Point", default: (-1, -1), doc: "A point on the subject (normalised image coordinates); used when there is no face region.")
    static let margin = Param.number("margin", "Margin", 0...200, default: 25, step: 1, unit: "cm",
            doc: "How far behind the face still counts as foreground (absolute depth).")
    static let relativeMargin = Param.number("relativeMargin", "Relative margin", 0...90, default: 20, step: 1, unit: "%",
            doc: "For relative depth: the cut lies this fraction of the face's disparity below it.")
    static let blur = Param.number("blur", "Blur", 0...200, default: 16, step: 0.5, unit: "px", doc: "Gaussian sigma of the transition, full-resolution pixels.")
    static let gamma = Param.number("gamma", "Gamma", 0.1...5, default: 1, step: 0.05, doc: "Above 1 narrows the foreground; below 1 widens it into a halo.")
    static let parameters: [EffectParameter] = [source.row, point.row, margin.row, relativeMargin.row, blur.row, FeatherEffect.edge.row, gamma.row]

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let input = try inputs.built("disparity")
        guard case .depth(let kind) = input.role else {
            throw EffectError.badInput(effect: description.id, message: "input must be the photo's depth or disparity")
        }
        let native = try c.native(input.node)
        let subject = try subjectValue(native, key: input.node.key, p, c, nearIsHigh: kind == .disparity)
        let absolute = c.photo.depth?.accuracy == .absolute
        let cut: Double
        let keepBelow: Bool
        switch (kind, absolute) {
        case (.disparity, true):
            cut = 1 / (1 / subject + p[Self.margin] / 100)
            keepBelow = false
        case (.disparity, false):
            cut = subject * (1 - p[Self.relativeMargin] / 100)
            keepBelow = false
        case (.depth, true):
            cut = subject + p[Self.margin] / 100
            keepBelow = true
        case (.depth, false):
            cut = subject / (1 - p[Self.relativeMargin] / 100)
            keepBelow = true
        }
        // The cut is made at the depth map's resolution and fitted to the photo's edges at the image's (the talk
        // blurred first and enlarged after, which left the edge a few pixels off: the glasses' temples were cut);
        // the blur and gamma then shape the transition on the right edge.
        var mask = try SubjectEdge.fitted(try Primitives.threshold(input.node, cut, keepBelow: keepBelow), c)
        mask = try Primitives.feather(mask, sigma: c.nativePixels(p[Self.blur], for: mask),
                                      edge: .init(rawValue: p[FeatherEffect.edge]) ?? .inside)
        mask = try Primitives.gamma(mask, p[Self.gamma])
        return BuiltNode(mask, role: .mask, marker: cut)
    }

    /// The plane's value at the subject: the median of the valid samples around the face centre or the point,
    /// or of the nearest 8 % of the frame.
    static func subjectValue(_ plane: PixelBuffer, key: NodeKey, _ p: ResolvedParameters, _ c: EffectContext,
                             nearIsHigh: Bool) throws -> Double {
        let source = p[Self.source]
        let face = c.photo.faces.first { $0.type.lowercased() == "face" } ?? c.photo.faces.first
        let point = p[Self.point]
        func around(_ x: Double, _ y: Double, radius: Double) -> Double? {
            DepthSupport.median(plane, at: (x, y), radius: radius)
        }
        if source == "face" || (source == "auto" && face != nil) {
            guard let face else {
                throw EffectError.badInput(effect: description.id, message: "the photo has no face regions; choose a point or \"nearest\"")
            }
            let w = Double(max(1, c.photo.width)), h = Double(max(1, c.photo.height))
            if let v = around(face.centerX / w, face.centerY / h, radius: 0.1 * face.width / w) { return v }
        }
        if source == "point" || (source == "auto" && point != nil) {
            guard let point else {
                throw EffectError.badInput(effect: description.id, message: "click a point on the subject first")
            }
            if let v = around(point.x, point.y, radius: 0.015) { return v }
        }
        guard let v = Statistics.percentile(sorted: c.statistics.sortedValid(key, plane), nearIsHigh ? 92 : 8) else {
            throw EffectError.badInput(effect: description.id, message: "the depth has no valid values")
        }
        return v
    }
}

/// Backdrop: the photo's subject over a new background, through the face-depth mask.
struct BackdropEffect: Effect {
    static let backgroundImage = Param.choice("backgroundImage", "Background", SampleLibrary.backgrounds.map(\.id), default: "mountains",
            doc: "Bundled background, used when no background input is connected and nothing is uploaded.")
    static let backgroundUpload = Param.upload("backgroundUpload", "Uploaded background",
            doc: "Your own picture (JPEG, HEIC or PNG), cropped to the photo's shape and resized once.")
    static let description = EffectDescription(
        id: "backdrop", title: "Backdrop",
        summary: "Replace the background: a face-depth mask blends the subject over a bundled, uploaded or given background.",
        output: .image,
        inputs: [EffectInput("image", .image), EffectInput("disparity", .plane), EffectInput("background", .image, optional: true)],
        parameters: [backgroundImage.row, backgroundUpload.row] + FaceDepthMaskEffect.parameters)

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let mask = try FaceDepthMaskEffect.build(
            inputs, ResolvedParameters(p.subset(FaceDepthMaskEffect.description), for: FaceDepthMaskEffect.description), c)
        let background: Node
        if let connected = inputs.optional("background") {
            background = connected.node
        } else if let upload = p[Self.backgroundUpload] {
            background = try Primitives.uploadedBackground(upload, effect: description.id, context: c)
        } else {
            background = try Primitives.background(p[Self.backgroundImage], context: c)
        }
        return BuiltNode(try Primitives.blend(try inputs.node("image"), background, mask: mask.node), role: .image, marker: mask.marker)
    }
}
