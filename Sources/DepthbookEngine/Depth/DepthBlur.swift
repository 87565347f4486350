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
public struct DepthBlur: Filter {
    public static let info = FilterInfo(
        name: "depthBlur", coreImageName: "CIDepthBlurEffect",
        summary: "Disc bokeh sized by each pixel's circle of confusion from disparity; matte-guided subject edges.",
        parameters: [
            ParameterInfo("aperture", label: "Aperture", range: 1.4...22, default: 2.8, unit: "f/",
                          doc: "Simulated f-number: f/1.4 blurs most, f/22 least."),
            ParameterInfo("maxRadius", label: "Largest blur", range: 0...400, default: 40, unit: "px",
                          doc: "Circle-of-confusion radius at f/1.4 for a full disparity span out of focus (native pixels)."),
            ParameterInfo("focusNear", label: "Focus from", range: 0...1, default: 0.5,
                          doc: "Lowest normalised disparity that is in focus."),
            ParameterInfo("focusFar", label: "Focus to", range: 0...1, default: 0.5,
                          doc: "Highest normalised disparity that is in focus."),
            ParameterInfo("low", label: "Disparity at 0", range: -1e9...1e9, default: 0, doc: "Disparity normalised to 0."),
            ParameterInfo("high", label: "Disparity at 1", range: -1e9...1e9, default: 1, doc: "Disparity normalised to 1."),
            ParameterInfo("subject", label: "Subject disparity", range: 0...1, default: 0.5,
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

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let grown = grown(target, by: reach(scale: Double(target.size.width) / Double(extent.width)) + 1)
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
        try context.checkCancelled()
        let reach = Int((radii.max() ?? 0).rounded(.up))
        let ch = 3
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            image.samples.withUnsafeBufferPointer { src in
                nearness.withUnsafeBufferPointer { nb in
                    radii.withUnsafeBufferPointer { rb in
                        let s = src.baseAddress!, nn = nb.baseAddress!, rr = rb.baseAddress!
                        context.parallelRows(region.height) { rows in
                            for row in rows {
                                let y = region.y + row
                                for col in 0..<region.width {
                                    let x = region.x + col
                                    let p = (y - inR.y) * inR.width + (x - inR.x)
                                    let rp = rr[p], np = nn[p]
                                    var acc0: Float = 0, acc1: Float = 0, acc2: Float = 0, wsum: Float = 0
                                    let y0 = Swift.max(inR.y, y - reach), y1 = Swift.min(inR.maxY - 1, y + reach)
                                    for qy in y0...y1 {
                                        let dy = Float(qy - y)
                                        let x0 = Swift.max(inR.x, x - reach), x1 = Swift.min(inR.maxX - 1, x + reach)
                                        var q = (qy - inR.y) * inR.width + (x0 - inR.x)
                                        for qx in x0...x1 {
                                            defer { q += 1 }
                                            var rq = rr[q]
                                            if nn[q] < np { rq = Swift.min(rq, rp) }
                                            let e = Swift.max(rq, 0.5)
                                            let dx = Float(qx - x)
                                            if dx * dx + dy * dy > e * e { continue }
                                            let w = 1 / (e * e)
                                            acc0 += w * s[q * ch]
                                            acc1 += w * s[q * ch + 1]
                                            acc2 += w * s[q * ch + 2]
                                            wsum += w
                                        }
                                    }
                                    let dst = o.pointer + (row * region.width + col) * ch
                                    if rp == 0 && reach == 0 {
                                        dst[0] = s[p * ch]; dst[1] = s[p * ch + 1]; dst[2] = s[p * ch + 2]
                                    } else {
                                        let k = 1 / wsum
                                        dst[0] = acc0 * k; dst[1] = acc1 * k; dst[2] = acc2 * k
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
