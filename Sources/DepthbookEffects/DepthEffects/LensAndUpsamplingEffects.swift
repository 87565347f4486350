import DepthbookEngine

/// Lens distortion correction (2017 "Straighten Up"): the photo made rectilinear with its calibration's
/// lens distortion (lookup table or coefficients, about the distortion centre), or the inverse warp that
/// puts the lens's geometry back exactly. A photo without lens calibration, or whose calibration describes
/// a perfect lens, is left exactly as it is, with a note saying why; a manual barrel/pincushion amount is
/// there to choose.
struct LensCorrectionEffect: Effect {
    static let direction = Param.choice("direction", "Direction", ["correct", "distort"], default: "correct",
            doc: "correct: make straight lines straight; distort: put the lens's curvature back.")
    static let source = Param.choice("source", "Distortion from", ["auto", "calibration", "manual"], default: "auto",
            doc: "auto: the photo's calibration when it has lens distortion, else no warp (a note says why); manual: the amount below.")
    static let strength = Param.number("strength", "Strength", 0...20, default: 1, step: 0.1,
            doc: "Multiplies the distortion (1 = as calibrated; larger to see it; 0 = no warp).")
    static let manual = Param.number("manual", "Manual distortion", -20...20, default: -3, step: 0.1, unit: "%",
            doc: "Radial magnification at the corners for the manual model (negative = barrel).")
    static let border = Param.choice("border", "Border", ["crop", "edge", "black"], default: "crop",
            doc: "What shows beyond the photo's frame: crop enlarges just enough that there is none (distort undoes it), edge repeats the nearest edge pixel, black leaves it black.")
    static let description = EffectDescription(
        id: "lensCorrection", title: "Lens distortion",
        summary: "Rectify with the calibration's lens distortion, or re-apply it (the inverse warp).",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [direction.row, source.row, strength.row, manual.row, border.row])

    /// Said when the photo's calibration describes its lens as free of distortion (every value zero).
    static let perfectLensNote = "This photo's calibration describes its lens as free of distortion (every value is zero), so there is nothing to correct: the photo is left as it is. Choose the manual source to try an amount."
    /// Said when the photo carries no lens calibration at all.
    static let noCalibrationNote = "This photo carries no lens calibration, so there is nothing to correct: the photo is left as it is. Choose the manual source to try an amount."

    /// The model to warp with, or nil when the photo's own calibration (`calibrated`) says there is nothing
    /// to correct.
    static func model(_ p: ResolvedParameters, _ c: EffectContext, calibrated: LensDistortionModel?) throws -> LensDistortionModel? {
        let perfect = calibrated?.describesNoDistortion ?? false
        switch (p[Self.source], calibrated) {
        case ("calibration", nil):
            throw EffectError.missingPlane("lens calibration")
        case ("calibration", _) where perfect:
            return nil
        case ("calibration", let m?):
            return m
        case ("auto", let m?) where !perfect:
            return m
        case ("auto", _):
            return nil
        default:
            // A quadratic magnification profile from 0 at the centre to the amount at the corners.
            let amount = p[Self.manual] / 100
            let w = Double(c.photo.width), h = Double(c.photo.height)
            return LensDistortionModel(center: (w / 2, h / 2), referenceSize: (w, h),
                                       forward: .table((0..<32).map { amount * pow(Double($0) / 31, 2) }), inverse: nil)
        }
    }

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let calibrated = c.photo.calibration.flatMap { LensDistortionModel($0) }
        let notes: Set<String> = switch (calibrated, p[Self.source]) {
        case (_, "manual"): []
        case (nil, _): [noCalibrationNote]
        case (let m?, _) where m.describesNoDistortion: [perfectLensNote]
        default: []
        }
        guard p[Self.strength] != 0, let model = try model(p, c, calibrated: calibrated) else {
            return BuiltNode(image, role: .image, notes: notes)
        }
        let direction: LensWarp.Direction = p[Self.direction] == "distort" ? .distort : .correct
        let warp = try LensWarp(model: model, direction: direction, strength: p[Self.strength],
                                border: LensWarp.Border(rawValue: p[Self.border]) ?? .crop)
        // Distorting a correction (the notebook's `back`) follows both maps to the photo in one sampling: in two
        // steps it would read the corrected frame where its crop had thrown the photo's edges away.
        if direction == .distort, let inner = image.filter as? LensWarp, inner.direction == .correct, image.inputs.count == 1 {
            return BuiltNode(try Node(LensWarpChain(inner: inner, outer: warp), image.inputs), role: .image, notes: notes)
        }
        return BuiltNode(try image.applying(warp), role: .image, notes: notes)
    }
}

/// Depth upsampling compared (2017): the disparity brought to the image's size by nearest, bilinear,
/// bicubic or edge-preserving (joint bilateral, guided by the image) interpolation, shown on a zoom crop.
struct DepthUpsamplingEffect: Effect {
    static let method = Param.choice("method", "Method", ["nearest", "bilinear", "bicubic", "edgePreserving"], default: "edgePreserving",
            doc: "Interpolation; edgePreserving keeps depth edges on the image's edges (CIEdgePreserveUpsampleFilter).")
    static let zoom = Param.number("zoom", "Zoom", 1...16, default: 4, step: 0.5, doc: "Magnification of the crop (1 shows the whole frame).")
    static let point = Param.point("point", "Crop centre", default: (0.5, 0.4), doc: "Centre of the zoom crop (normalised image coordinates).")
    static let colorSigma = Param.number("colorSigma", "Edge sensitivity", 0.01...0.5, default: 0.06, step: 0.01,
            doc: "edgePreserving only: colour difference that halves a neighbour's weight; smaller keeps edges harder.")
    static let description = EffectDescription(
        id: "depthUpsampling", title: "Depth upsampling",
        summary: "Disparity up to the image's size: nearest, bilinear, bicubic or edge-preserving, on a zoom crop.",
        output: .plane, inputs: [EffectInput("disparity", .plane), EffectInput("image", .image)],
        parameters: [method.row, zoom.row, point.row, colorSigma.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let built = try inputs.built("disparity")
        let image = try inputs.node("image")
        var node: Node
        switch p[Self.method] {
        case "edgePreserving":
            node = try Node(JointBilateralUpsample(sigmaSpatial: 1, sigmaRange: p[Self.colorSigma], radius: 2), [built.node, image])
        case let name:
            node = try Node(PlaneUpsample(method: ResamplingMethod(rawValue: name) ?? .bilinear), [built.node, image])
        }
        let point = p[Self.point] ?? (0.5, 0.5)
        if p[Self.zoom] > 1 { node = try node.applying(ZoomCrop(zoom: p[Self.zoom], x: point.x, y: point.y)) }
        return BuiltNode(node, role: built.role == .image ? .mask : built.role)
    }
}

/// The same zoom crop of the image, to set beside the upsampled disparity.
struct ZoomCropEffect: Effect {
    static let zoom = Param.number("zoom", "Zoom", 1...16, default: 4, step: 0.5, doc: "Magnification.")
    static let point = Param.point("point", "Crop centre", default: (0.5, 0.4), doc: "Centre of the crop (normalised image coordinates).")
    static let description = EffectDescription(
        id: "zoomCrop", title: "Zoom crop",
        summary: "Magnify a window of the image around a point.",
        output: .image, inputs: [EffectInput("image", .image)],
        parameters: [zoom.row, point.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        if p[Self.zoom] == 1 { return BuiltNode(image, role: .image) }
        let point = p[Self.point] ?? (0.5, 0.5)
        return BuiltNode(try image.applying(ZoomCrop(zoom: p[Self.zoom], x: point.x, y: point.y)), role: .image)
    }
}

import func Foundation.pow

/// Holes filled (2018, TrueDepth streaming): raw depth has holes where the camera saw nothing (absorbing or
/// shiny surfaces, shadows of the projector, far backgrounds); the filtered stream fills them from around.
/// Push-pull: valid values never change, holes take the mean of the valid values nearest them.
struct HoleFillEffect: Effect {
    static let description = EffectDescription(
        id: "holeFill", title: "Fill depth holes",
        summary: "Raw depth to filtered: each hole filled from the valid depth around it; valid pixels never change.",
        output: .plane, inputs: [EffectInput("depth", .plane)], parameters: [])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let built = try inputs.built("depth")
        return BuiltNode(try built.node.applying(HoleFill()), role: built.role == .image ? .mask : built.role)
    }
}

