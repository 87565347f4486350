/// Dolly zoom ("Vertigo"): the virtual camera moves along its axis by t while its focal length changes
/// so that the focal plane keeps its size in the picture; everything nearer or farther shifts by
/// perspective.
///
/// A pixel at source position u with depth Z sits at X = (u − cx)·Z/f. The camera moved to z = t with focal
/// length f' = f·(Zf − t)/Zf sees it at u' = cx + f'·X/(Z − t), i.e. it moves radially about the principal
/// point by the factor s = Z·(Zf − t) / (Zf·(Z − t)) — the "magic line" of the 2017 talk's vertex shader.
/// s = 1 on the focal plane (Z = Zf) and everywhere when t = 0. Only Z/Zf matters, so relative depth works.
/// The image is a triangle mesh over the picture (a vertex every `step` output pixels), displaced by that
/// factor and drawn with a z-buffer on Z − t.
///
/// What the photo never saw comes in two kinds, each handled its own way (`Frame`, `Uncovered`). Beyond the
/// frame: the largest clean rectangle of the photo alone, drawn enlarged to the frame (the camera travelling
/// no farther than a crop of at most `largestCrop` allows); the photo continued a
/// short way past its edges (its mirror image at the edge's depth, warped with it) and the view cropped to what
/// that covers; black (the talk); or the edge pixels stretched. Uncovered by the subject (behind a
/// foreground edge): the photo's background behind the edge drawn by the same camera (`BackgroundPlate`, when
/// given), else with the far background's own texture (`PatchInpaint`, started from push-pull weighted
/// towards the far side), stretched from the edge (the talk: torn triangles kept), or black (torn triangles dropped).
public struct DollyZoom: Filter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "dollyZoom", coreImageName: nil,
        summary: "Depth-displaced mesh seen by a virtual camera that dollies while keeping the focal plane's size.",
        parameters: [
            ParameterInfo("dolly", range: -0.9...0.9,
                          doc: "Camera travel towards the scene as a fraction of the focal-plane distance (negative pulls back)."),
            ParameterInfo("focalDepth", range: 1e-6...1e9,
                          doc: "Depth (in the depth plane's units) that keeps its size: what a tap picks."),
            ParameterInfo("focalLength", range: 1...1e6, unit: "px",
                          doc: "Camera focal length in native image pixels (from the calibration's intrinsics)."),
            ParameterInfo("cx", range: -1e6...1e6, unit: "px", doc: "Native image pixels."),
            ParameterInfo("cy", range: -1e6...1e6, unit: "px", doc: "Native image pixels."),
            ParameterInfo("step", range: 1...32, unit: "px",
                          doc: "Mesh cell size in output pixels."),
            ParameterInfo("tear", range: 1...100,
                          doc: "Uncovered black or filled: a cell whose far/near depth ratio exceeds this is a discontinuity, left uncovered."),
        ])

    /// What the view shows past the photo's edges.
    public enum Frame: String, Sendable, CaseIterable {
        /// The photo continued a short way past its edges by its mirror image (at most `DollyGeometry.mirroredBand`
        /// of each side, at the edge's depth, moved with it), and the view cropped to what that and the photo cover.
        case fill
        /// The largest rectangle of the frame's shape the photo covers, drawn enlarged to the frame; the camera
        /// travels only as far as a crop of at most `largestCrop` allows.
        case crop
        /// Black, as in the talk.
        case black
        /// The edge pixels smeared outwards.
        case stretch
    }

    /// What the view shows where the subject uncovers what it hid.
    public enum Uncovered: String, Sendable, CaseIterable {
        /// Filled from the background around the gap.
        case fill
        /// The subject's edge smeared over the gap (the talk).
        case stretch
        /// Black.
        case black
    }

    public let dolly: Double
    public let focalDepth: Double
    public let focalLength: Double
    public let cx: Double
    public let cy: Double
    public let frame: Frame
    public let uncovered: Uncovered
    public let step: Int
    public let tear: Double

    public init(dolly: Double, focalDepth: Double, focalLength: Double, cx: Double, cy: Double,
                frame: Frame, uncovered: Uncovered, step: Int = 2, tear: Double = 1.1) throws {
        let i = Self.info
        try i.validate("dolly", dolly)
        try i.validate("focalDepth", focalDepth)
        try i.validate("focalLength", focalLength)
        try i.validate("cx", cx)
        try i.validate("cy", cy)
        try i.validate("step", Double(step))
        try i.validate("tear", tear)
        self.dolly = dolly
        self.focalDepth = focalDepth
        self.focalLength = focalLength
        self.cx = cx
        self.cy = cy
        self.frame = frame
        self.uncovered = uncovered
        self.step = step
        self.tear = tear
    }

    /// The talk's two switches: black or stretched past the edges, stretched or black where uncovered.
    public init(dolly: Double, focalDepth: Double, focalLength: Double, cx: Double, cy: Double,
                stretchesEdges: Bool = false, stretchesUncovered: Bool = true, step: Int = 2, tear: Double = 1.1) throws {
        try self.init(dolly: dolly, focalDepth: focalDepth, focalLength: focalLength, cx: cx, cy: cy,
                      frame: stretchesEdges ? .stretch : .black, uncovered: stretchesUncovered ? .stretch : .black, step: step, tear: tear)
    }

    public var parameterKey: String {
        "t=\(dolly),zf=\(focalDepth),f=\(focalLength),c=\(cx),\(cy),frame=\(frame.rawValue),uncovered=\(uncovered.rawValue),step=\(step),tear=\(tear)"
    }

    /// Inputs: the image and its depth, and optionally what lies behind their near edges (`BackgroundPlate`'s
    /// colour and depth), which the uncovered gaps then show.
    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, inputs.count == 4 ? [.image, .plane, .image, .plane] : [.image, .plane])
        return .image
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let plate = RenderTarget(size: Self.plateSize(for: target.size, extent: extent))
        let texture = RenderTarget(size: textureSize(for: target.size, imageExtent: inputExtents[0]))
        return inputExtents.indices.map { $0 == 0 ? texture : $0 == 1 ? RenderTarget(size: target.size) : plate }
    }

    /// The photo is read finer than the view when the view crops: the crop enlarges what it keeps up to
    /// `largestCrop` times, and enlarging the drawn view afterwards blurred it. One size for every travel, so a
    /// drag of the slider reads the photo the evaluator already made at that size (sized by the travel, each
    /// frame resampled the photo afresh). Never finer than the photo itself.
    func textureSize(for size: PixelSize, imageExtent: PixelSize) -> PixelSize {
        guard frame == .crop || frame == .fill, size.width > 0 else { return size }
        let k = min(Self.largestCrop, Double(imageExtent.width) / Double(size.width))
        guard k > 1 else { return size }
        return PixelSize(width: Int((Double(size.width) * k).rounded()), height: Int((Double(size.height) * k).rounded()))
    }

    /// The background plate is made at one size for every preview up to `plateWidth` (the coarse pass of a
    /// drag reads the plate the first full frame made, instead of making its own), at the target's above it,
    /// and never wider than `largestPlateWidth`: it only shows through the gaps, enlarged. On the selfie at its
    /// full 2316 px, `out` renders in 4.7 s with the plate at 1024 px, 6.2 s at 1280 px, 2.4 s without a plate.
    public static let plateWidth = 736
    public static let largestPlateWidth = 1024

    static func plateSize(for size: PixelSize, extent: PixelSize) -> PixelSize {
        let width = min(largestPlateWidth, max(size.width, min(plateWidth, extent.width)))
        guard width != size.width else { return size }
        return PixelSize(width: width, height: max(1, Int((Double(size.height) * Double(width) / Double(max(1, size.width))).rounded())))
    }

    /// The largest share of the distance to the nearest depth the camera travels towards the scene.
    public static let nearestTravel = 0.6

    /// The radial scale factor of a point at depth `z` (while the travel is under `nearestTravel` of the
    /// nearest depth).
    public func radialScale(depth z: Double) -> Double {
        let t = dolly * focalDepth
        return z * (focalDepth - t) / (focalDepth * (z - t))
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let image = inputs[0]
        let size = request.target.size
        let scale = request.scale
        guard let far = DepthPlaneFill.largestValid(inputs[1].samples, positive: true) else {
            throw RenderError.missingPlane("valid depth (the depth plane is all holes)")
        }
        let depth = PixelBuffer(region: inputs[1].region, channels: 1,
                                samples: DepthPlaneFill.filled(inputs[1].samples, with: far, positive: true))
        // The camera never travels past `nearestTravel` of the way to the nearest thing in the photo: as it
        // nears a surface that surface's magnification grows without bound (a leaf filled a whole frame).
        let near = DepthPlaneFill.smallestValid(depth.samples, positive: true) ?? far
        let zf = Float(focalDepth), t = min(Float(dolly * focalDepth), Float(Self.nearestTravel) * near)
        let px = Float(cx * scale), py = Float(cy * scale)
        var geometry = DollyGeometry(zf: zf, t: t, px: px, py: py, size: size, step: step)
        let extended = frame == .fill || frame == .crop
        let mirrored = frame == .fill
        // Cropping chooses its rectangle first and draws straight into it, from the photo read finer
        // (`textureSize`): enlarging a drawn view blurred it.
        var view = DollyView(size)
        if frame == .crop {
            (geometry, view) = try travelWithinCrop(geometry, depth: depth, context: context)
        } else if mirrored {
            view = try cropRect(geometry, depth: depth, reach: geometry.margins(edges: depth), context: context)
        }
        // Only the mirrored continuation reaches past the photo's edges.
        let margins = mirrored ? geometry.margins(edges: depth) : (x: 0, y: 0)
        let skirt: Float? = frame == .stretch ? Float(max(size.width, size.height)) : nil
        let tears: Float? = uncovered == .stretch ? nil : Float(tear)
        var mesh = geometry.mesh(depth: depth, skirt: skirt, margins: margins, mirrored: mirrored, tears: tears)
        view.place(&mesh, size: size)
        let fineness = (x: Float(image.region.width) / Float(size.width), y: Float(image.region.height) / Float(size.height))
        try context.checkCancelled()
        let fills = uncovered == .fill || extended
        // Filling needs the depth of what was drawn: the z-buffer's, as one more channel.
        let picture = MeshRasterizer.draw(mesh.textureScaled(by: fineness), source: image, size: size, clampTexture: image.region,
                                          depthOffset: fills ? geometry.t : nil, context: context)
        let drawn = picture.depth.map { depth in
            MeshRasterizer.Result(buffer: DollyFill.withDepth(picture.result.buffer, PixelBuffer(region: PixelRect(size), channels: 1, samples: depth)),
                                  covered: picture.result.covered)
        } ?? picture.result
        guard fills else { return drawn.buffer.cropped(to: request.region) }
        try context.checkCancelled()
        // What the subject uncovered, seen on the plate behind it, drawn by the same camera.
        var behind: MeshRasterizer.Result? = nil
        if uncovered == .fill, inputs.count == 4, let plateFar = DepthPlaneFill.largestValid(inputs[3].samples, positive: true) {
            let whole = DollyView(inputs[2].region.size).rect
            let plateDepth = DollyFill.scaled(PixelBuffer(region: inputs[3].region, channels: 1,
                                                          samples: DepthPlaneFill.filled(inputs[3].samples, with: plateFar, positive: true)),
                                              from: whole, to: size)
            let plateColour = DollyFill.scaled(inputs[2], from: whole, to: size)
            var plateMesh = geometry.mesh(depth: plateDepth, skirt: skirt, margins: margins, mirrored: mirrored, tears: tears)
            DollyFill.keepReplaced(&plateMesh, comparedWith: mesh)
            view.place(&plateMesh, size: size)
            behind = MeshRasterizer.draw(plateMesh, source: plateColour, size: size, clampTexture: PixelRect(size), context: context)
            try context.checkCancelled()
        }
        // Past the edges of a black frame stays black (the talk's look); only what the subject uncovered is filled.
        // Pulling back, what the plate covers is behind the subject, even where its gap reaches the frame's border: the ring a
        // pulled-back selfie's head uncovered joined the border along a shoulder, and filled like the view past the
        // frame (from the nearest drawn pixels) it was a blurred band of the forehead's skin. Other gaps that reach
        // the border are still filled like the view past it (the tunnel's floor torn along the frame, from the floor
        // beside it: filled from what lay farther, it showed the courtyard's graffiti in strips). What even the
        // photo's whole mesh leaves uncovered is past the edges, plate or not. (Moving in, the gaps that reach the
        // border open beside the subject along it: the table's top, shown from the plate, was cut by a seam.)
        let reached = DollyFill.borderConnected(drawn.covered, size: size)
        let beyond = try beyondPhoto(geometry, view: view, depth: depth, skirt: skirt, margins: margins, mirrored: mirrored,
                                     drawn: drawn.covered, context: context)
        let pullsBack = geometry.t < 0
        let pastEdges = reached.indices.map { beyond[$0] || (reached[$0] && !(pullsBack && behind?.covered[$0] == true)) }
        let result = try DollyFill.filled(drawn, channels: image.channels, size: size, pastEdges: pastEdges,
                                          keepBlack: frame == .black ? pastEdges : nil, behind: behind,
                                          textured: uncovered == .fill, checkCancelled: context.checkCancelled)
        return result.cropped(to: request.region)
    }

    /// How much a crop may enlarge the view: moving in by 0.35 enlarges the far background by up to
    /// 1/(1 − 0.35) ≈ 1.54. Past it the camera travels only as far as a crop this large allows
    /// (`travelWithinCrop`): pulling back by 0.2 from the shared selfie, dahlias and hut would enlarge 2–2.4
    /// times (a blurred view of the middle of the photo), and continuing the photo past its edges instead
    /// showed mirrored copies of the sweater and the leaves the frame cuts.
    public static let largestCrop = 1.6

    /// The travel and its crop: the whole travel when its crop enlarges at most `largestCrop` times, else the
    /// longest share of it whose crop does (bisected on the coarse pass that places the crop). A camera cannot
    /// show what the photo never saw, so it stops where the photo's edges come into view rather than invent
    /// them.
    private func travelWithinCrop(_ geometry: DollyGeometry, depth: PixelBuffer, context: RenderContext) throws -> (DollyGeometry, DollyView) {
        let whole = try cropRect(geometry, depth: depth, reach: nil, context: context)
        guard whole.enlargement(of: geometry.size) > Self.largestCrop else { return (geometry, whole) }
        var best = (geometry.travelled(0), DollyView(geometry.size))
        var low: Float = 0, high: Float = 1
        for _ in 0..<Self.travelBisections {
            let share = (low + high) / 2
            let moved = geometry.travelled(share)
            let view = try cropRect(moved, depth: depth, reach: nil, context: context)
            if view.enlargement(of: geometry.size) > Self.largestCrop { high = share } else { low = share; best = (moved, view) }
        }
        return best
    }

    /// Halvings of the travel: 7 find it within 1/128 of the asked travel (a slider's step at ±0.9 is 1/90).
    static let travelBisections = 7

    /// The uncovered pixels of `drawn` past the photo's edges (or its continuation's): those the photo's mesh
    /// leaves uncovered even whole, its torn cells kept.
    private func beyondPhoto(_ geometry: DollyGeometry, view: DollyView, depth: PixelBuffer, skirt: Float?, margins: (x: Int, y: Int),
                             mirrored: Bool, drawn: [Bool], context: RenderContext) throws -> [Bool] {
        let seen = try Self.coarseCoverage(geometry, depth: depth, skirt: skirt, reach: margins, mirrored: mirrored, view: view, context: context)
        // A pixel is past the edges when the fine mesh left it uncovered and the whole coarse one did too.
        let size = geometry.size, w = size.width, k = Self.coarseFactor
        return (0..<(w * size.height)).map { i in
            guard !drawn[i] else { return false }
            let x = min(seen.size.width - 1, (i % w) / k), y = min(seen.size.height - 1, (i / w) / k)
            return !seen.covered[y * seen.size.width + x]
        }
    }

    /// How much coarser `coarseCoverage` is than the frame: only shapes are read from it, so a quarter of the
    /// resolution and a mesh four times coarser do (drawn whole, it cost a third of a 736-px frame).
    static let coarseFactor = 4

    /// What the photo's whole mesh (no cell torn) covers, at a `coarseFactor`-th of the frame's resolution; its
    /// reach rounded down to its own step, so it claims no more than the fine mesh draws. `view`: placed as shown.
    private static func coarseCoverage(_ geometry: DollyGeometry, depth: PixelBuffer, skirt: Float?, reach: (x: Int, y: Int),
                                       mirrored: Bool, view: DollyView?, context: RenderContext) throws -> (covered: [Bool], size: PixelSize) {
        let size = geometry.size, k = coarseFactor
        let small = PixelSize(width: max(1, size.width / k), height: max(1, size.height / k))
        let coarse = DollyGeometry(zf: geometry.zf, t: geometry.t, px: geometry.px, py: geometry.py, size: size, step: geometry.step * k)
        let coarseReach = (x: reach.x / (geometry.step * k) * (geometry.step * k), y: reach.y / (geometry.step * k) * (geometry.step * k))
        var mesh = coarse.mesh(depth: depth, skirt: skirt, margins: coarseReach, mirrored: mirrored, tears: nil)
        view?.place(&mesh, size: size)
        let sx = Float(small.width) / Float(size.width), sy = Float(small.height) / Float(size.height)
        for i in mesh.x.indices { mesh.x[i] *= sx; mesh.y[i] *= sy }
        let ones = PixelBuffer(region: PixelRect(size), channels: 1, repeating: 1)
        let seen = MeshRasterizer.draw(mesh, source: ones, size: small, clampTexture: PixelRect(size), context: context)
        try context.checkCancelled()
        return (seen.covered, small)
    }

    /// The part of the frame the view shows: the largest rectangle of the frame's shape that the photo (with
    /// a `reach`, and its mirrored continuation that far) covers, gaps bridged: it keeps clear of what lies
    /// beyond, not of what the subject uncovered (that is filled). The whole frame when the photo covers it.
    private func cropRect(_ geometry: DollyGeometry, depth: PixelBuffer, reach margins: (x: Int, y: Int)?, context: RenderContext) throws -> DollyView {
        let size = geometry.size
        // Only to place the rectangle: the coarse coverage does.
        let seen = try Self.coarseCoverage(geometry, depth: depth, skirt: nil, reach: margins ?? (x: 0, y: 0), mirrored: margins != nil,
                                           view: nil, context: context)
        let small = seen.size
        let sx = Float(small.width) / Float(size.width), sy = Float(small.height) / Float(size.height)
        let found = DollyFill.cleanRect(outside: DollyFill.borderConnected(seen.covered, size: small), size: small,
                                        centre: (Double(geometry.px * sx), Double(geometry.py * sy)))
        let back = (x: Double(size.width) / Double(small.width), y: Double(size.height) / Double(small.height))
        return DollyView(rect: (x: found.x * back.x, y: found.y * back.y, width: found.width * back.x, height: found.height * back.y))
    }
}

/// The rectangle of the dolly zoom's frame that its view shows, enlarged to the whole view.
struct DollyView {
    let rect: (x: Double, y: Double, width: Double, height: Double)

    init(rect: (x: Double, y: Double, width: Double, height: Double)) { self.rect = rect }

    /// The whole frame.
    init(_ size: PixelSize) { rect = (0, 0, Double(size.width), Double(size.height)) }

    /// How many times the view enlarges the frame of `size`.
    func enlargement(of size: PixelSize) -> Double { Double(size.width) / rect.width }

    /// Moves the mesh's drawn positions from the frame into the view.
    func place(_ mesh: inout WarpMesh, size: PixelSize) {
        let kx = Float(Double(size.width) / rect.width), ky = Float(Double(size.height) / rect.height)
        let x0 = Float(rect.x), y0 = Float(rect.y)
        guard kx != 1 || ky != 1 || x0 != 0 || y0 != 0 else { return }
        for i in mesh.x.indices {
            mesh.x[i] = (mesh.x[i] - x0) * kx
            mesh.y[i] = (mesh.y[i] - y0) * ky
        }
    }
}

extension WarpMesh {
    /// The same mesh reading a texture `by` times finer than the frame its texture positions are in.
    func textureScaled(by k: (x: Float, y: Float)) -> WarpMesh {
        guard k.x != 1 || k.y != 1 else { return self }
        var scaled = self
        for i in scaled.u.indices { scaled.u[i] *= k.x; scaled.v[i] *= k.y }
        return scaled
    }
}
