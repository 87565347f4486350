import DepthbookDocument
import DepthbookEngine

/// Dolly zoom (2017): a triangle mesh over the photo displaced by depth, a virtual camera that dollies
/// while its field of view keeps the tapped focal plane the same size, z-buffered. What the photo never saw is
/// never left black unless asked: past its edges the view is cropped (or the photo extended), and what the
/// subject uncovers shows the background behind its edge (`BackgroundPlate`: the background's own texture,
/// copied once per photo and size). The talk's look (black edges, stretched gaps) is
/// a choice of each.
struct DollyZoomEffect: Effect {
    static let dolly = Param.number("dolly", "Dolly", -0.9...0.9, default: 0.3, step: 0.01,
            doc: "Camera travel towards the scene as a fraction of the focal-plane distance (negative pulls back).")
    static let point = Param.point("point", "Focal plane", default: (0.5, 0.5), doc: "Tap what should keep its size (normalised image coordinates).")
    static let frame = Param.choice("frame", "Beyond the frame", DollyZoom.Frame.allCases.map(\.rawValue), default: "crop",
            doc: "crop: the largest rectangle the photo covers, enlarged to the frame (drawn from the photo at the finer size); the camera travels only as far as a crop of at most 1.6× allows, since past that the photo's edges would show what it never saw; fill: the photo continued a short way past its edges by its mirror image (at the edge's depth, moved with it) and the view cropped to what that covers, which shows mirrored copies of what the edges cut; black: left black (the talk); stretch: the edge pixels smeared outwards.")
    static let edges = Param.choice("edges", "Beyond the frame (before frame)", ["black", "stretch"], default: "black",
            doc: "Read only when frame is not set, for notebooks saved before it: black or stretch.")
    static let uncovered = Param.choice("uncovered", "Uncovered areas", DollyZoom.Uncovered.allCases.map(\.rawValue), default: "fill",
            doc: "fill: what the subject hid shows the background behind its edge, its own texture copied from around it; stretch: smeared from its edge (the talk); black: left black.")
    static let meshStep = Param.number("meshStep", "Mesh step", 1...8, default: 2, step: 1, unit: "px", doc: "Triangle size in output pixels.")
    static let description = EffectDescription(
        id: "dollyZoom", title: "Dolly zoom",
        summary: "Move the virtual camera while zooming so the tapped plane keeps its size: perspective from depth.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("depth", .plane)],
        parameters: [dolly.row, point.row, frame.row, uncovered.row, meshStep.row, edges.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        try DepthSupport.requireMeasured(c)
        let image = try inputs.node("image")
        let depth = try DepthSupport.depth(try inputs.built("depth"), c, effect: description.id)
        // Untapped, the plane that keeps its size is the subject's (the face, else the middle of the near class).
        let chosen = p.isGiven(Self.point) ? nil : try SubjectCut.subjectPoint(c)
        let point = chosen ?? p[Self.point] ?? (0.5, 0.5)
        guard let focal = DepthSupport.median(try c.native(depth), at: point, radius: 0.01), focal > 0 else {
            throw EffectError.badInput(effect: description.id, message: "no depth at the focal point; tap somewhere else")
        }
        let picked = Self.point.picked(chosen)
        if p[Self.dolly] == 0 { return BuiltNode(image, role: .image, chosen: picked) }
        let k = DepthSupport.intrinsics(c)
        let frame = !p.isGiven(Self.frame) && p.isGiven(Self.edges) ? p[Self.edges] : p[Self.frame]
        let zoom = try DollyZoom(dolly: p[Self.dolly], focalDepth: focal, focalLength: (k.fx + k.fy) / 2, cx: k.cx, cy: k.cy,
                                 frame: DollyZoom.Frame(rawValue: frame) ?? .crop,
                                 uncovered: DollyZoom.Uncovered(rawValue: p[Self.uncovered]) ?? .fill, step: p.int(Self.meshStep))
        // What the subject uncovers is the photo's own background behind its edge (kept while the camera moves).
        // Pulling back, the depth's subject edge is moved onto a matte's, so the wall beside a head stays with the
        // wall as the head shrinks from it. Only a matte drawn from the picture (Apple's, or the learned person
        // matte's): a subject found from depth alone missed the Android table's top, which aligned went to the
        // background in a seam. (Moving in, the background shrinks away from the subject and the map's own edge
        // served better: aligned, the table's top showed a seam too. The talk's looks keep the map.)
        var inputs = [image, depth]
        if zoom.uncovered == .fill {
            let apple = c.photo.matte(.portraitEffectsMatte) != nil
            let subject = apple ? try Primitives.photo(c, .matte(.portraitEffectsMatte)) : try SubjectPlane.mask(c)
            let matted = try apple || SubjectFusion.fused(c) != nil
            let aligned = zoom.dolly < 0 && matted ? try Node(MatteAlignedDepth(), [depth, subject]) : depth
            inputs = [image, aligned, try Node(BackgroundPlate(layer: .colour), [image, aligned, subject]),
                      try Node(BackgroundPlate(layer: .depth), [aligned, subject])]
        }
        return BuiltNode(try Node(zoom, inputs), role: .image, marker: focal, chosen: picked)
    }
}

/// Point cloud (2018, TrueDepth streamer): unproject each valid depth pixel with the intrinsics rescaled to
/// the depth map, colour it from the image, discard holes, and render from an orbiting viewpoint.
struct PointCloudEffect: Effect {
    static let yaw = Param.number("yaw", "Orbit left/right", -180...180, default: 25, step: 1, unit: "°", doc: "Turn about the vertical axis through the subject.")
    static let pitch = Param.number("pitch", "Orbit up/down", -90...90, default: -10, step: 1, unit: "°", doc: "Turn about the horizontal axis.")
    static let distance = Param.number("distance", "Distance", -0.9...10, default: 0.3, step: 0.05,
            doc: "How far the viewpoint backs away, as a fraction of the subject's depth.")
    static let pointSize = Param.number("pointSize", "Point size", 0.25...8, default: 1.5, step: 0.25, doc: "Splat side in depth-map pixels.")
    static let description = EffectDescription(
        id: "pointCloud", title: "Point cloud",
        summary: "X = (u − cx)·Z/fx, Y = (v − cy)·Z/fy per valid depth pixel, coloured, seen from an orbit.",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("depth", .plane)],
        parameters: [yaw.row, pitch.row, distance.row, pointSize.row])

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        try DepthSupport.requireMeasured(c)
        let image = try inputs.node("image")
        let depth = try DepthSupport.depth(try inputs.built("depth"), c, effect: description.id)
        // The orbit turns about the subject (the face, else the middle of the near class), not the scene's median
        // depth: on a rear-camera photo that is the wall behind, and the subject swung out of the frame.
        let subject = try SubjectCut.subjectPoint(c)
        let pivot = try subject.flatMap { DepthSupport.median(try c.native(depth), at: $0, radius: 0.01) }
        let render = try PointCloudRender(yaw: p[Self.yaw], pitch: p[Self.pitch], distance: p[Self.distance],
                                          pointSize: p[Self.pointSize], intrinsics: DepthSupport.intrinsics(c),
                                          pivotDepth: pivot)
        return BuiltNode(try Node(render, [image, depth]), role: .image)
    }
}

/// One frame of the "Wiggle Me" loop: the photo re-rendered from a camera stepped around a small circle,
/// the focal plane held still. `phase` walks the loop; `depthbook wiggle` writes the whole loop as a GIF.
struct WiggleEffect: Effect {
    static let description = EffectDescription(
        id: "wiggle", title: "Wiggle",
        summary: "Parallax from depth: the view from a camera circling a little, focal plane fixed (the Wiggle Me loop).",
        output: .image, inputs: [EffectInput("image", .image), EffectInput("disparity", .plane)],
        parameters: parameters, loopParameter: "phase")

    static let phase = Param.number("phase", "Phase", 0...1, default: 0, step: 0.01, doc: "Where in the loop this frame is (0 and 1 are the same frame).")
    static let amplitude = Param.number("amplitude", "Amplitude", 0...400, default: 40, step: 1, unit: "px",
            doc: "How far the nearest plane moves against the focal plane, full-resolution pixels.")
    static let vertical = Param.number("vertical", "Vertical", 0...1, default: 0.3, step: 0.05, doc: "Vertical swing relative to the horizontal one.")
    static let point = Param.point("point", "Focal plane", default: (0.5, 0.5), doc: "Tap what should stay still (normalised image coordinates).")
    static let parameters: [EffectParameter] = [phase.row, amplitude.row, vertical.row, point.row]

    /// The parallax node for `phase`, and the focus as a normalised disparity.
    static func frame(image: Node, disparity: Node, phase: Double, _ p: ResolvedParameters, _ c: EffectContext) throws -> Node {
        let range = try DepthSupport.range(disparity, c, effect: description.id)
        let point = p[Self.point] ?? (0.5, 0.5)
        let span = Double(range.upperBound - range.lowerBound)
        let tapped = DepthSupport.median(try c.native(disparity), at: point, radius: 0.01) ?? Double(range.lowerBound)
        let focus = span > 0 ? min(1, max(0, (tapped - Double(range.lowerBound)) / span)) : 0
        let amplitude = c.nativePixels(p[Self.amplitude], for: image)
        let theta = 2 * Double.pi * phase
        return try Node(ParallaxShift(dx: min(1000, amplitude * cos(theta)), dy: min(1000, amplitude * p[Self.vertical] * sin(theta)),
                                      focus: focus, low: Double(range.lowerBound), high: Double(range.upperBound)), [image, disparity])
    }

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let disparity = try DepthSupport.disparity(try inputs.built("disparity"), c, effect: description.id)
        return BuiltNode(try frame(image: image, disparity: disparity, phase: p[Self.phase], p, c), role: .image)
    }
}

import func Foundation.cos
import func Foundation.sin
