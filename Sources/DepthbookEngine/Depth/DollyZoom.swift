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
/// What the photo never saw comes in two kinds, filled each its own way. Beyond the frame (the virtual camera
/// sees past the photo's edges): black, as in the talk, or stretched by a skirt of far-out vertices that repeat
/// the edge pixels. Uncovered by the subject (behind a foreground edge): stretched, as in the talk (triangles
/// torn at the depth discontinuity are kept, so the edge smears over the gap), or black (torn triangles dropped).
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
            ParameterInfo("edges", range: 0...1,
                          doc: "0: black past the photo's edges (the talk); 1: the edge pixels stretched outwards."),
            ParameterInfo("uncovered", range: 0...1,
                          doc: "0: black where the subject uncovers what it hid; 1: stretched from its edge (the talk)."),
            ParameterInfo("step", range: 1...32, unit: "px",
                          doc: "Mesh cell size in output pixels."),
            ParameterInfo("tear", range: 1...100,
                          doc: "Uncovered black only: a cell whose far/near depth ratio exceeds this is a discontinuity, left uncovered."),
        ])

    public let dolly: Double
    public let focalDepth: Double
    public let focalLength: Double
    public let cx: Double
    public let cy: Double
    /// Past the photo's edges: the edge pixels stretched outwards (else black).
    public let stretchesEdges: Bool
    /// Where the subject uncovers what it hid: its edge stretched over the gap (else black).
    public let stretchesUncovered: Bool
    public let step: Int
    public let tear: Double

    public init(dolly: Double, focalDepth: Double, focalLength: Double, cx: Double, cy: Double,
                stretchesEdges: Bool = false, stretchesUncovered: Bool = true, step: Int = 2, tear: Double = 1.1) throws {
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
        self.stretchesEdges = stretchesEdges
        self.stretchesUncovered = stretchesUncovered
        self.step = step
        self.tear = tear
    }

    public var parameterKey: String {
        "t=\(dolly),zf=\(focalDepth),f=\(focalLength),c=\(cx),\(cy),edges=\(stretchesEdges),uncovered=\(stretchesUncovered),step=\(step),tear=\(tear)"
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        return .image
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size), RenderTarget(size: target.size)]
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
        let skirt: Float? = stretchesEdges ? Float(max(size.width, size.height)) : nil
        var mesh = WarpMesh(us: WarpMesh.stops(length: size.width, step: step, skirt: skirt),
                            vs: WarpMesh.stops(length: size.height, step: step, skirt: skirt))
        // The camera never travels past `nearestTravel` of the way to the nearest thing in the photo: as it
        // nears a surface that surface's magnification grows without bound (a leaf filled a whole frame).
        let near = DepthPlaneFill.smallestValid(depth.samples, positive: true) ?? far
        let zf = Float(focalDepth), t = min(Float(dolly * focalDepth), Float(Self.nearestTravel) * near)
        let px = Float(cx * scale), py = Float(cy * scale)
        var value: Float = 0
        for k in 0..<(mesh.columns * mesh.rows) {
            let u = mesh.u[k], v = mesh.v[k]
            let su = min(Float(size.width) - 0.5, max(0.5, u)), sv = min(Float(size.height) - 0.5, max(0.5, v))
            depth.sampleBilinear(su, sv, into: &value)
            let z = value
            let zc = z - t
            if !(zc > 1e-3 * zf) {
                mesh.x[k] = .nan; mesh.y[k] = .nan
                continue
            }
            let s = z * (zf - t) / (zf * zc)
            mesh.x[k] = px + (u - px) * s
            mesh.y[k] = py + (v - py) * s
            mesh.z[k] = zc
            // Texture positions clamp into the photo: skirt vertices repeat the edge pixels.
            mesh.u[k] = min(Float(size.width), max(0, u))
            mesh.v[k] = min(Float(size.height), max(0, v))
        }
        if !stretchesUncovered { markTears(&mesh, ratio: Float(tear)) }
        try context.checkCancelled()
        let drawn = MeshRasterizer.draw(mesh, source: image, size: size, clampTexture: image.region, context: context)
        return drawn.buffer.cropped(to: request.region)
    }

    /// Drops cells torn open: their vertices' depths span more than `ratio` (far/near), a depth
    /// discontinuity, and the warp stretched or folded them (a cell that keeps its size uncovers nothing).
    func markTears(_ mesh: inout WarpMesh, ratio: Float) {
        let c = mesh.columns
        for j in 0..<(mesh.rows - 1) {
            for i in 0..<(c - 1) {
                let k = j * c + i
                let corners = [k, k + 1, k + c, k + c + 1]
                let zs = corners.map { mesh.z[$0] }
                let lo = zs.min() ?? 0, hi = zs.max() ?? 0
                guard lo > 0, hi / lo > ratio else { continue }
                let xs = corners.map { mesh.x[$0] }, ys = corners.map { mesh.y[$0] }
                let us = corners.map { mesh.u[$0] }, vs = corners.map { mesh.v[$0] }
                func extent(_ a: [Float]) -> Float { (a.max() ?? 0) - (a.min() ?? 0) }
                let folded = (mesh.x[k + 1] - mesh.x[k]) * (mesh.u[k + 1] - mesh.u[k]) < 0
                    || (mesh.y[k + c] - mesh.y[k]) * (mesh.v[k + c] - mesh.v[k]) < 0
                if folded || extent(xs) > extent(us) * 1.25 + 0.5 || extent(ys) > extent(vs) * 1.25 + 0.5 {
                    mesh.droppedCells[j * (c - 1) + i] = true
                }
            }
        }
    }
}
