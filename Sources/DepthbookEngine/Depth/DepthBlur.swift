/// Synthetic depth of field, as CIDepthBlurEffect does it: every pixel becomes a flat disc (bokeh) whose
/// radius is its circle of confusion, computed from its disparity's distance to the focused range.
///
/// The circle of confusion of a thin lens grows with |d − d_focus| (d = 1/Z) and with the aperture
/// diameter, i.e. inversely with the f-number N. With relative disparity only differences are meaningful,
/// so the disparity is first normalised (n = (d − low)/(high − low)) and
///   r(n) = maxRadius · (1.4 / N) · max(0, focusNear − n, n − focusFar)      (native image pixels)
/// so f/1.4 gives `maxRadius` for a pixel a whole disparity span away from focus, f/22 about 1/16 of it.
/// Everything inside [focusNear, focusFar] is sharp.
///
/// Rendering is a gather that behaves like scattering each pixel's disc: pixel q contributes to p when p
/// lies within q's own radius, with weight 1/r(q)² (each disc keeps its energy). A pixel behind p reaches
/// it only within min(r(q), r(p)), so a blurred background never smears over a sharp subject, and a sharp
/// subject never glows into the blurred background around it (its disc is tiny): no halos. When a matte is
/// given (third input), the radius is mixed towards the subject's own radius by the matte,
///   r = m · r(subject) + (1 − m) · r(n),
/// so the edge between subject and background follows the fine matte, not the coarse disparity.
///
/// Holes count as the farthest disparity. With every radius 0 the output is the input, exactly.
///
/// Cost: a direct gather costs (2R + 1)² taps per pixel for a largest radius R. Above `directReach` the
/// wide discs are gathered on a copy box-averaged by an integer factor k (its blocks anchored at the
/// frame's origin, so any tiling gives the same pixels) with radii divided by k, and scaled back up
/// bilinearly; pixels whose own circle is small are also gathered directly at full resolution, within
/// `directReach`, and the two are mixed by that radius. A wide disc is smooth, so the copy loses nothing
/// visible, and f/1.4 costs about what f/8 does (inputScaleFactor still helps on top).
public struct DepthBlur: Filter {
    public static let info = FilterInfo(
        name: "depthBlur", coreImageName: "CIDepthBlurEffect",
        summary: "Disc bokeh sized by each pixel's circle of confusion from disparity; matte-guided subject edges.",
        parameters: [
            ParameterInfo("aperture", range: 1.4...22, unit: "f/",
                          doc: "Simulated f-number: f/1.4 blurs most, f/22 least."),
            ParameterInfo("maxRadius", range: 0...400, unit: "px",
                          doc: "Circle-of-confusion radius at f/1.4 for a full disparity span out of focus (native pixels)."),
            ParameterInfo("focusNear", range: 0...1,
                          doc: "Lowest normalised disparity that is in focus."),
            ParameterInfo("focusFar", range: 0...1,
                          doc: "Highest normalised disparity that is in focus."),
            ParameterInfo("low", range: -1e9...1e9, doc: "Disparity normalised to 0."),
            ParameterInfo("high", range: -1e9...1e9, doc: "Disparity normalised to 1."),
            ParameterInfo("subject", range: 0...1,
                          doc: "Normalised disparity of the subject the matte covers (used only with a matte)."),
        ])

    public let aperture: Double
    public let maxRadius: Double
    public let focusNear: Float
    public let focusFar: Float
    public let low: Float
    public let high: Float
    public let subject: Float

    public init(aperture: Double, maxRadius: Double, focusNear: Double, focusFar: Double,
                low: Double, high: Double, subject: Double = 0.5) throws {
        let i = Self.info
        try i.validate("aperture", aperture)
        try i.validate("maxRadius", maxRadius)
        try i.validate("focusNear", focusNear)
        try i.validate("focusFar", focusFar)
        try i.validate("low", low)
        try i.validate("high", high)
        try i.validate("subject", subject)
        guard focusNear <= focusFar else {
            throw RenderError.badParameter(filter: i.name, name: "focusNear", message: "must not exceed focusFar")
        }
        self.aperture = aperture
        self.maxRadius = maxRadius
        self.focusNear = Float(focusNear)
        self.focusFar = Float(focusFar)
        self.low = Float(low)
        self.high = Float(high)
        self.subject = Float(subject)
    }

    public var parameterKey: String {
        "N=\(aperture),r=\(maxRadius),f=\(focusNear)...\(focusFar),lo=\(low),hi=\(high),s=\(subject)"
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs == [.image, .plane] || inputs == [.image, .plane, .plane] else {
            throw RenderError.badInputs(filter: Self.info.name, message: "expects an image, a disparity plane and optionally a matte")
        }
        return .image
    }

    /// Circle-of-confusion radius, in pixels of this render, for a normalised disparity.
    @inline(__always)
    func radius(normalised n: Float, scale: Float) -> Float {
        let off = Swift.max(0, Swift.max(focusNear - n, n - focusFar))
        return Float(maxRadius * 1.4 / aperture) * scale * off
    }

    /// The largest radius any pixel can get at this render scale.
    func reach(scale: Double) -> Int { Int((maxRadius * 1.4 / aperture * scale).rounded(.up)) }

    /// Largest radius gathered directly at full resolution.
    static let directReach = 8

    /// The block size of the downsampled copy for a largest radius `reach` (1: no copy).
    public static func factor(reach: Int) -> Int { reach <= directReach ? 1 : (reach + directReach - 1) / directReach }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let reach = reach(scale: Double(target.size.width) / Double(extent.width))
        let k = Self.factor(reach: reach)
        // The copy needs whole blocks around the reach, plus one block each side for the bilinear scale-up.
        let grown = grown(target, by: reach + 1 + (k > 1 ? 4 * k : 0))
        return inputExtents.map { _ in grown }
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let image = inputs[0], disparity = inputs[1]
        let matte = inputs.count > 2 ? inputs[2] : nil
        let inR = image.region, region = request.region
        let scale = Float(request.scale)
        let span = high - low, inv: Float = span > 0 ? 1 / span : 0
        // Per input pixel: normalised disparity (holes far) and circle of confusion.
        var nearness = [Float](repeating: 0, count: inR.pixelCount)
        var radii = [Float](repeating: 0, count: inR.pixelCount)
        let subjectRadius = radius(normalised: subject, scale: scale)
        for i in 0..<inR.pixelCount {
            let d = disparity.samples[i]
            let n = d.isNaN ? 0 : Swift.min(1, Swift.max(0, (d - low) * inv))
            nearness[i] = n
            var r = radius(normalised: n, scale: scale)
            if let matte {
                let m = Swift.min(1, Swift.max(0, matte.samples[i].isNaN ? 0 : matte.samples[i]))
                r = m * subjectRadius + (1 - m) * r
            }
            radii[i] = r
        }
        let full = BokehGrid(rect: inR, colour: image.samples, nearness: nearness, radii: radii)
        try context.checkCancelled()
        let k = Self.factor(reach: reach(scale: request.scale))
        if k == 1 {
            let reach = Self.reach(of: radii)
            return PixelBuffer(region: region, channels: 3) { out in
                full.gather(into: SendablePointer(out.baseAddress!), region: region, reach: reach, context: context)
            }
        }
        // Wide discs on the block-averaged copy of the blurry pixels only (a sharp subject never leaks into
        // it), over the blocks the output's scale-up reads; a fourth channel says whether a block has any.
        let direct = Float(Self.directReach)
        let small = full.downsampled(by: k, keeping: direct / 2)
        let needed = PixelRect(x: Self.floorDiv(region.x, k) - 1, y: Self.floorDiv(region.y, k) - 1,
                               width: Self.floorDiv(region.maxX - 1, k) - Self.floorDiv(region.x, k) + 3,
                               height: Self.floorDiv(region.maxY - 1, k) - Self.floorDiv(region.y, k) + 3).intersection(small.rect)
        // Every block may be empty (no pixel blurry enough for the copy, though the aperture could make one):
        // the reach is then 0, never the empty cells' -1.
        let smallReach = Self.reach(of: small.radii)
        let wide = PixelBuffer(region: needed, channels: 4) { out in
            small.gather(into: SendablePointer(out.baseAddress!), region: needed, reach: smallReach, context: context, validity: true)
        }
        try context.checkCancelled()
        return PixelBuffer(region: region, channels: 3) { out in
            let o = SendablePointer(out.baseAddress!)
            wide.samples.withUnsafeBufferPointer { wb in
                let w = SendablePointer(UnsafeMutablePointer(mutating: wb.baseAddress!)), wr = needed
                context.parallelRows(region.height) { rows in
                    for row in rows {
                        let y = region.y + row
                        let v = Swift.min(Swift.max((Float(y) + 0.5) / Float(k) - 0.5, Float(wr.y)), Float(wr.maxY - 1))
                        let y0 = Int(v.rounded(.down)), y1 = Swift.min(y0 + 1, wr.maxY - 1), fy = v - Float(y0)
                        for col in 0..<region.width {
                            let x = region.x + col
                            let rp = full.radius(x: x, y: y)
                            var t = Swift.min(1, Swift.max(0, (rp - direct / 2) / (direct / 2)))
                            var blurred = SIMD3<Float>(repeating: 0)
                            if t > 0 {
                                // Bilinear over the blocks that hold blurry pixels, renormalised.
                                let u = Swift.min(Swift.max((Float(x) + 0.5) / Float(k) - 0.5, Float(wr.x)), Float(wr.maxX - 1))
                                let x0 = Int(u.rounded(.down)), x1 = Swift.min(x0 + 1, wr.maxX - 1), fx = u - Float(x0)
                                var total: Float = 0
                                for (bx, by, weight) in [(x0, y0, (1 - fx) * (1 - fy)), (x1, y0, fx * (1 - fy)),
                                                         (x0, y1, (1 - fx) * fy), (x1, y1, fx * fy)] {
                                    let b = ((by - wr.y) * wr.width + (bx - wr.x)) * 4
                                    let wv = weight * w.pointer[b + 3]
                                    blurred += wv * SIMD3(w.pointer[b], w.pointer[b + 1], w.pointer[b + 2])
                                    total += wv
                                }
                                if total > 0 { blurred /= total } else { t = 0 }
                            }
                            var value = blurred
                            if t < 1 {
                                let sharp = full.pixel(x: x, y: y, reach: Self.directReach)
                                value = sharp + (blurred - sharp) * t
                            }
                            let dst = o.pointer + (row * region.width + col) * 3
                            dst[0] = value.x; dst[1] = value.y; dst[2] = value.z
                        }
                    }
                }
            }
        }
    }

    /// The gather reach for a grid's radii: the largest radius rounded up, 0 when none is positive.
    static func reach(of radii: [Float]) -> Int { Int(Swift.max(0, radii.max() ?? 0).rounded(.up)) }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

/// A grid of pixels as the bokeh sees them: colour, normalised disparity and circle-of-confusion radius.
/// A radius below 0 marks an empty cell (a block of the copy with no blurry pixel): it gives nothing.
struct BokehGrid: Sendable {
    var rect: PixelRect
    var colour: [Float]
    var nearness: [Float]
    var radii: [Float]

    @inline(__always)
    func radius(x: Int, y: Int) -> Float { radii[(y - rect.y) * rect.width + (x - rect.x)] }

    /// Box average over k×k blocks anchored at the frame's origin (block (X, Y) covers pixels kX..<kX+k) of
    /// the pixels whose radius is at least `keeping`; radii are divided by k. Blocks cut by the rectangle's
    /// edge average what they have.
    func downsampled(by k: Int, keeping minimum: Float) -> BokehGrid {
        let x0 = DepthBlur.floorDiv(rect.x, k), y0 = DepthBlur.floorDiv(rect.y, k)
        let small = PixelRect(x: x0, y: y0, width: DepthBlur.floorDiv(rect.maxX - 1, k) - x0 + 1,
                              height: DepthBlur.floorDiv(rect.maxY - 1, k) - y0 + 1)
        var out = BokehGrid(rect: small, colour: [Float](repeating: 0, count: small.pixelCount * 3),
                            nearness: [Float](repeating: 0, count: small.pixelCount), radii: [Float](repeating: 0, count: small.pixelCount))
        var counts = [Float](repeating: 0, count: small.pixelCount)
        for y in rect.y..<rect.maxY {
            let by = DepthBlur.floorDiv(y, k) - y0
            for x in rect.x..<rect.maxX {
                let p = (y - rect.y) * rect.width + (x - rect.x)
                guard radii[p] >= minimum else { continue }
                let b = by * small.width + DepthBlur.floorDiv(x, k) - x0
                out.colour[b * 3] += colour[p * 3]
                out.colour[b * 3 + 1] += colour[p * 3 + 1]
                out.colour[b * 3 + 2] += colour[p * 3 + 2]
                out.nearness[b] += nearness[p]
                out.radii[b] += radii[p]
                counts[b] += 1
            }
        }
        for b in 0..<small.pixelCount {
            guard counts[b] > 0 else { out.radii[b] = -1; continue }
            let inv = 1 / counts[b]
            out.colour[b * 3] *= inv; out.colour[b * 3 + 1] *= inv; out.colour[b * 3 + 2] *= inv
            out.nearness[b] *= inv
            out.radii[b] *= inv / Float(k)
        }
        return out
    }

    /// The scatter-as-gather at (x, y) within `reach`: q reaches p within its own radius, or within p's when
    /// q lies behind p; each disc weighs 1/r². Empty cells give nothing; the fourth value is the weight sum.
    @inline(__always)
    func gathered(x: Int, y: Int, reach: Int) -> SIMD4<Float> {
        let inR = rect
        let p = (y - inR.y) * inR.width + (x - inR.x)
        let rp = radii[p], np = nearness[p]
        if rp <= 0 && reach == 0 { return SIMD4(colour[p * 3], colour[p * 3 + 1], colour[p * 3 + 2], 1) }
        var acc = SIMD4<Float>(repeating: 0)
        let y0 = Swift.max(inR.y, y - reach), y1 = Swift.min(inR.maxY - 1, y + reach)
        let x0 = Swift.max(inR.x, x - reach), x1 = Swift.min(inR.maxX - 1, x + reach)
        guard y0 <= y1, x0 <= x1 else { return acc }
        colour.withUnsafeBufferPointer { s in
            nearness.withUnsafeBufferPointer { nn in
                radii.withUnsafeBufferPointer { rr in
                    for qy in y0...y1 {
                        let dy = Float(qy - y)
                        var q = (qy - inR.y) * inR.width + (x0 - inR.x)
                        for qx in x0...x1 {
                            defer { q += 1 }
                            var rq = rr[q]
                            if rq < 0 { continue }
                            if nn[q] < np { rq = Swift.min(rq, Swift.max(rp, 0)) }
                            let e = Swift.max(rq, 0.5)
                            let dx = Float(qx - x)
                            if dx * dx + dy * dy > e * e { continue }
                            let w = 1 / (e * e)
                            acc += SIMD4(w * s[q * 3], w * s[q * 3 + 1], w * s[q * 3 + 2], w)
                        }
                    }
                }
            }
        }
        return acc
    }

    /// The bokeh colour at (x, y).
    @inline(__always)
    func pixel(x: Int, y: Int, reach: Int) -> SIMD3<Float> {
        let g = gathered(x: x, y: y, reach: reach)
        return g.w > 0 ? SIMD3(g.x, g.y, g.z) / g.w : SIMD3(repeating: 0)
    }

    /// Every pixel of `region` (grid coordinates) gathered within `reach`, written to `out` as RGB, or as
    /// RGB plus 1/0 (has any weight) with `validity`.
    func gather(into out: SendablePointer<Float>, region: PixelRect, reach: Int, context: RenderContext, validity: Bool = false) {
        let channels = validity ? 4 : 3
        context.parallelRows(region.height) { rows in
            for row in rows {
                for col in 0..<region.width {
                    let g = gathered(x: region.x + col, y: region.y + row, reach: reach)
                    let dst = out.pointer + (row * region.width + col) * channels
                    let k: Float = g.w > 0 ? 1 / g.w : 0
                    dst[0] = g.x * k; dst[1] = g.y * k; dst[2] = g.z * k
                    if validity { dst[3] = g.w > 0 ? 1 : 0 }
                }
            }
        }
    }
}
