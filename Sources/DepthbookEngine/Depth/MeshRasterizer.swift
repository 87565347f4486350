/// A grid mesh laid over the source image, each vertex moved to a new place in the output, drawn with a
/// z-buffer: the software stand-in for the talk's Metal vertex + fragment shaders.
///
/// Vertex (i, j) has an output position (x, y) in continuous output-frame pixels, a depth z used only for
/// the z-test (smaller is nearer), and a texture position (u, v) in continuous source-frame pixels. A
/// vertex with a NaN position is dropped with its triangles. Texture positions are interpolated linearly
/// across each (small) triangle and the source is sampled bilinearly, so a mesh that moves nothing
/// reproduces the source exactly.
struct WarpMesh {
    let columns: Int
    let rows: Int
    var x: [Float]
    var y: [Float]
    var z: [Float]
    var u: [Float]
    var v: [Float]
    /// Cells (index j·(columns−1)+i) whose two triangles are skipped: tears at depth discontinuities.
    var droppedCells: [Bool]

    /// A mesh whose vertices sit at source positions `us` × `vs` (texture coordinates), not yet moved.
    init(us: [Float], vs: [Float]) {
        columns = us.count
        rows = vs.count
        let n = columns * rows
        x = [Float](repeating: 0, count: n)
        y = x; z = x; u = x; v = x
        for j in 0..<rows {
            for i in 0..<columns {
                u[j * columns + i] = us[i]
                v[j * columns + i] = vs[j]
            }
        }
        droppedCells = [Bool](repeating: false, count: max(0, (columns - 1) * (rows - 1)))
    }

    /// Grid positions from 0 to `length` every `step` pixels (the last one exactly at `length`), optionally
    /// with one far-out vertex beyond each end (a skirt that stretches the edge pixels outward).
    static func stops(length: Int, step: Int, skirt: Float?) -> [Float] {
        var s: [Float] = []
        var p = 0
        while p < length {
            s.append(Float(p))
            p += max(1, step)
        }
        s.append(Float(length))
        if let skirt { s = [-skirt] + s + [Float(length) + skirt] }
        return s
    }
}

/// Draws a `WarpMesh` into an output frame, textured from a source buffer, with a z-buffer.
struct MeshRasterizer {
    /// The rendered pixels (whole output frame) and which of them a triangle covered.
    struct Result {
        var buffer: PixelBuffer
        var covered: [Bool]
    }

    /// Rasterises `mesh` into a frame of `size`; uncovered pixels are `background`. With a `depthOffset`, the
    /// z-buffer plus that offset is kept too (0 where nothing was drawn): the depth of what each pixel shows.
    static func draw(_ mesh: WarpMesh, source: PixelBuffer, size: PixelSize, clampTexture: PixelRect,
                     background: Float = 0, context: RenderContext) -> Result {
        draw(mesh, source: source, size: size, clampTexture: clampTexture, background: background, depthOffset: nil, context: context).result
    }

    static func draw(_ mesh: WarpMesh, source: PixelBuffer, size: PixelSize, clampTexture: PixelRect,
                     background: Float = 0, depthOffset: Float?, context: RenderContext) -> (result: Result, depth: [Float]?) {
        let ch = source.channels
        let width = size.width, height = size.height
        var covered = [Bool](repeating: false, count: width * height)
        var depth = [Float](repeating: 0, count: depthOffset == nil ? 0 : width * height)
        let cells = (mesh.columns - 1) * (mesh.rows - 1)
        // Bounding rows of every cell, so each band visits only the cells that touch it.
        var cellTop = [Int32](repeating: 0, count: max(0, cells)), cellBottom = cellTop
        for j in 0..<(mesh.rows - 1) {
            for i in 0..<(mesh.columns - 1) {
                let c = j * (mesh.columns - 1) + i
                let k = [j * mesh.columns + i, j * mesh.columns + i + 1, (j + 1) * mesh.columns + i, (j + 1) * mesh.columns + i + 1]
                var lo = Float.infinity, hi = -Float.infinity
                var ok = !mesh.droppedCells[c]
                for v in k {
                    let yy = mesh.y[v]
                    if yy.isNaN || mesh.x[v].isNaN { ok = false }
                    lo = min(lo, yy); hi = max(hi, yy)
                }
                if !ok || hi < 0 || lo > Float(height) { cellTop[c] = 1; cellBottom[c] = 0; continue }
                cellTop[c] = Int32(max(0, Int((lo - 0.5).rounded(.up))))
                cellBottom[c] = Int32(min(height - 1, Int((hi - 0.5).rounded(.down))))
            }
        }
        let clampLo = (Float(clampTexture.x) + 0.5, Float(clampTexture.y) + 0.5)
        let clampHi = (Float(clampTexture.maxX) - 0.5, Float(clampTexture.maxY) - 0.5)
        let out = PixelBuffer(region: PixelRect(size), channels: ch) { pixels in
            for i in 0..<pixels.count { pixels[i] = background }
            let o = SendablePointer(pixels.baseAddress!)
            covered.withUnsafeMutableBufferPointer { cov in
                depth.withUnsafeMutableBufferPointer { dep in
                    let cv = SendablePointer(cov.baseAddress!)
                    let dp = dep.baseAddress.map(SendablePointer.init)
                    let bands = max(1, min(height, context.threads * 2))
                    context.parallelRows(bands, minimumBand: 1) { bandRange in
                        for band in bandRange {
                            let top = height * band / bands, bottom = height * (band + 1) / bands - 1
                            if bottom < top { continue }
                            var zbuf = [Float](repeating: .infinity, count: (bottom - top + 1) * width)
                            var sample = [Float](repeating: 0, count: ch)
                            for c in 0..<cells where Int(cellTop[c]) <= bottom && Int(cellBottom[c]) >= top {
                                let j = c / (mesh.columns - 1), i = c % (mesh.columns - 1)
                                let a = j * mesh.columns + i, b = a + 1, d = a + mesh.columns, e = d + 1
                                rasterTriangle(mesh, a, b, d, top: top, bottom: bottom, width: width,
                                               zbuf: &zbuf, sample: &sample, source: source,
                                               clampLo: clampLo, clampHi: clampHi, out: o.pointer, covered: cv.pointer)
                                rasterTriangle(mesh, b, e, d, top: top, bottom: bottom, width: width,
                                               zbuf: &zbuf, sample: &sample, source: source,
                                               clampLo: clampLo, clampHi: clampHi, out: o.pointer, covered: cv.pointer)
                            }
                            if let dp, let offset = depthOffset {
                                for row in 0...(bottom - top) {
                                    for x in 0..<width {
                                        let z = zbuf[row * width + x]
                                        dp.pointer[(top + row) * width + x] = z.isFinite ? z + offset : 0
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (Result(buffer: out, covered: covered), depthOffset == nil ? nil : depth)
    }

    @inline(__always)
    private static func rasterTriangle(_ m: WarpMesh, _ p0: Int, _ p1: Int, _ p2: Int, top: Int, bottom: Int, width: Int,
                                       zbuf: inout [Float], sample: inout [Float], source: PixelBuffer,
                                       clampLo: (Float, Float), clampHi: (Float, Float),
                                       out: UnsafeMutablePointer<Float>, covered: UnsafeMutablePointer<Bool>) {
        let x0 = m.x[p0], y0 = m.y[p0], x1 = m.x[p1], y1 = m.y[p1], x2 = m.x[p2], y2 = m.y[p2]
        let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0 || !area.isFinite { return }
        // Vertices pushed to infinity (or NaN) by a degenerate warp are not drawn: converting them would trap.
        let limit: Float = 1e7
        guard abs(x0) < limit, abs(x1) < limit, abs(x2) < limit, abs(y0) < limit, abs(y1) < limit, abs(y2) < limit else { return }
        let invArea = 1 / area
        let minY = max(top, Int((min(y0, y1, y2) - 0.5).rounded(.up)))
        let maxY = min(bottom, Int((max(y0, y1, y2) - 0.5).rounded(.down)))
        let minX = max(0, Int((min(x0, x1, x2) - 0.5).rounded(.up)))
        let maxX = min(width - 1, Int((max(x0, x1, x2) - 0.5).rounded(.down)))
        if minY > maxY || minX > maxX { return }
        let eps: Float = -1e-4
        let ch = source.channels
        for py in minY...maxY {
            let fy = Float(py) + 0.5
            for px in minX...maxX {
                let fx = Float(px) + 0.5
                let w0 = ((x1 - fx) * (y2 - fy) - (x2 - fx) * (y1 - fy)) * invArea
                let w1 = ((x2 - fx) * (y0 - fy) - (x0 - fx) * (y2 - fy)) * invArea
                let w2 = 1 - w0 - w1
                if w0 < eps || w1 < eps || w2 < eps { continue }
                let z = w0 * m.z[p0] + w1 * m.z[p1] + w2 * m.z[p2]
                let zi = (py - top) * width + px
                if !(z < zbuf[zi]) { continue }
                zbuf[zi] = z
                let u = min(clampHi.0, max(clampLo.0, w0 * m.u[p0] + w1 * m.u[p1] + w2 * m.u[p2]))
                let v = min(clampHi.1, max(clampLo.1, w0 * m.v[p0] + w1 * m.v[p1] + w2 * m.v[p2]))
                sample.withUnsafeMutableBufferPointer { s in source.sampleBilinear(u, v, into: s.baseAddress!) }
                let dst = out + (py * width + px) * ch
                for k in 0..<ch { dst[k] = sample[k] }
                covered[py * width + px] = true
            }
        }
    }
}
