/// Where the dolly zoom's mesh lands: a grid over the photo (optionally reaching past its edges), each vertex
/// moved radially about the principal point by s = Z·(Zf − t) / (Zf·(Z − t)) (see `DollyZoom`).
struct DollyGeometry {
    let zf: Float
    let t: Float
    let px: Float
    let py: Float
    let size: PixelSize
    let step: Int

    func scale(depth z: Float) -> Float { z * (zf - t) / (zf * (z - t)) }

    /// The same camera travelling only `share` of the way.
    func travelled(_ share: Float) -> DollyGeometry {
        DollyGeometry(zf: zf, t: t * share, px: px, py: py, size: size, step: step)
    }

    /// How far (output pixels) the photo's extension must reach past each side so the view covers the frame. The
    /// extension carries each edge's depth straight out (`mesh`), so a point of the edge at depth z and distance
    /// D from the principal point is seen at D·s(z), and the frame's edge needs the extension out to D/s where
    /// s < 1 along that edge: the far background when moving in, a near edge (a bust the frame cuts) when
    /// pulling back. At most `mirroredBand` of the side: what lies farther the view crops away (`DollyZoom`).
    func margins(edges depth: PixelBuffer) -> (x: Int, y: Int) {
        let w = depth.region.width, h = depth.region.height
        func smallestScale(_ indices: [Int]) -> Float {
            var low: Float = 1
            for i in indices {
                let z = depth.samples[i]
                if z - t > 1e-3 * zf { low = min(low, scale(depth: z)) }
            }
            return low
        }
        let left = smallestScale((0..<h).map { $0 * w }), right = smallestScale((0..<h).map { $0 * w + w - 1 })
        let top = smallestScale(Array(0..<w)), bottom = smallestScale((0..<w).map { (h - 1) * w + $0 })
        func reach(_ distance: Float, _ s: Float, _ limit: Int) -> Int {
            guard s > 0, s < 1 else { return 2 * step }
            let grow = Double(distance) * Double(1 / s - 1)
            return min(limit, Int(min(grow, Double(limit)).rounded(.up)) + step)
        }
        let limit = (x: Int(Self.mirroredBand * Float(size.width)), y: Int(Self.mirroredBand * Float(size.height)))
        return (max(reach(px, left, limit.x), reach(Float(size.width) - px, right, limit.x)),
                max(reach(py, top, limit.y), reach(Float(size.height) - py, bottom, limit.y)))
    }

    /// Grid stops 0...length every `step`, then `margin` more on each side at the same spacing.
    func stops(length: Int, margin: Int) -> [Float] {
        let inside = WarpMesh.stops(length: length, step: step, skirt: nil)
        let n = (margin + step - 1) / step
        guard n > 0 else { return inside }
        return (1...n).reversed().map { Float(-$0 * step) } + inside + (1...n).map { Float(length + $0 * step) }
    }

    /// A position past the photo's edge reflected back into 0...length (the photo's mirror image).
    static func mirror(_ p: Float, _ length: Float) -> Float {
        guard p < 0 || p > length else { return p }
        let band = max(1, mirroredBand * length)
        var d = (p < 0 ? -p : p - length).truncatingRemainder(dividingBy: 2 * band)
        if d > band { d = 2 * band - d }
        return min(length, max(0, p < 0 ? d : length - d))
    }

    /// How deep into the photo its mirror image reaches, as a share of the side (`margins` reach no further; past
    /// it the band would fold back and forth). A whole mirror image showed a second, upside-down chin below a bust
    /// when pulling back; folded, a sweater became a kaleidoscope.
    static let mirroredBand: Float = 0.2

    /// The mesh moved for the travel. Past the photo's edges the texture is its mirror image (`mirrored`) at the
    /// depth of the nearest point of the edge, carried straight out: what continues past the frame moves with
    /// what the frame cut (a bust's shoulders shrink with the bust when pulling back, instead of leaving a smear
    /// below it), and a face in the middle, mirrored at the edge's depth, stays out of view. Or the edge pixels
    /// (a `skirt` vertex far out). With `tears`, cells torn open at a depth discontinuity are dropped (`markTears`).
    func mesh(depth: PixelBuffer, skirt: Float?, margins: (x: Int, y: Int), mirrored: Bool, tears: Float?) -> WarpMesh {
        let w = Float(size.width), h = Float(size.height)
        var mesh = mirrored
            ? WarpMesh(us: stops(length: size.width, margin: margins.x), vs: stops(length: size.height, margin: margins.y))
            : WarpMesh(us: WarpMesh.stops(length: size.width, step: step, skirt: skirt),
                       vs: WarpMesh.stops(length: size.height, step: step, skirt: skirt))
        var textureU = mesh.u, textureV = mesh.v
        var value: Float = 0
        for k in 0..<(mesh.columns * mesh.rows) {
            let u = mesh.u[k], v = mesh.v[k]
            let tu = mirrored ? Self.mirror(u, w) : min(w, max(0, u))
            let tv = mirrored ? Self.mirror(v, h) : min(h, max(0, v))
            // Inside, the depth under the texture; past the edges, the edge's (the clamped position).
            let outside = u < 0 || u > w || v < 0 || v > h
            depth.sampleBilinear(min(w - 0.5, max(0.5, outside ? u : tu)), min(h - 0.5, max(0.5, outside ? v : tv)), into: &value)
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
            textureU[k] = tu
            textureV[k] = tv
        }
        // Without a mirror the tears are judged on the texture positions (a skirt's cells stretch by design);
        // with one, on the grid's own positions (the mirror reverses the texture's direction).
        if !mirrored { mesh.u = textureU; mesh.v = textureV }
        if let tears { Self.markTears(&mesh, ratio: tears) }
        if mirrored { mesh.u = textureU; mesh.v = textureV }
        return mesh
    }

    /// Drops cells torn open: their vertices' depths span more than `ratio` (far/near), a depth
    /// discontinuity, and the warp stretched or folded them (a cell that keeps its size uncovers nothing).
    static func markTears(_ mesh: inout WarpMesh, ratio: Float) {
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
