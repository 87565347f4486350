import DepthbookEngine

/// Synthetic depth of field, as CIDepthBlurEffect: a simulated aperture (f/1.4 to f/22), a focus point or
/// rectangle — or the photo's faces from its XMP when there are any — a disc bokeh sized by each pixel's
/// circle of confusion from disparity, the portrait matte (when given) to keep the subject's edge clean,
/// and a scale factor that renders the blur on a smaller copy for fast previews (inputScaleFactor).
struct DepthOfFieldEffect: Effect {
    static let aperture = Param.number("aperture", "Aperture", 1.4...22, default: 2.8, step: 0.1, unit: "f/",
            doc: "Simulated f-number: f/1.4 is the shallowest focus, f/22 the deepest.")
    static let focus = Param.choice("focus", "Focus on", ["auto", "point", "rect", "everything"], default: "auto",
            doc: "auto: the photo's faces (XMP regions), else the point you chose, else the subject found from depth; rect: the rectangle around the point; everything: no blur.")
    static let point = Param.point("point", "Focus point", default: (0.5, 0.5), doc: "Where to focus (normalised image coordinates).")
    static let rectSize = Param.number("rectSize", "Focus rect", 0.01...1, default: 0.08, step: 0.01,
            doc: "Side of the focus rectangle around the point, as a fraction of the image width.")
    static let maxBlur = Param.number("maxBlur", "Largest blur", 0...10, default: 3, step: 0.1, unit: "% of width",
            doc: "Bokeh radius at f/1.4 for the farthest disparity from focus, as a share of the image's width (so a 12 MP photo and a small one look alike).")
    static let scaleFactor = Param.number("scaleFactor", "Scale factor", 0.125...1, default: 1, step: 0.125,
            doc: "Render the blur on a copy this much smaller, then scale up (inputScaleFactor): faster previews.")
    static let description = EffectDescription(
        id: "depthOfField", title: "Depth of field",
        summary: "Aperture and focus from disparity: disc bokeh sized by the circle of confusion, no halos (CIDepthBlurEffect).",
        output: .image,
        inputs: [EffectInput("image", .image), EffectInput("disparity", .plane), EffectInput("matte", .plane, optional: true)],
        parameters: [aperture.row, focus.row, point.row, rectSize.row, maxBlur.row, scaleFactor.row])

    /// The focused range of normalised disparity.
    static func focusRange(_ disparity: PixelBuffer, _ range: ClosedRange<Float>, _ p: ResolvedParameters,
                           _ c: EffectContext) -> ClosedRange<Double> {
        let span = Double(range.upperBound - range.lowerBound)
        func normalised(_ r: ClosedRange<Float>) -> ClosedRange<Double> {
            guard span > 0 else { return 0...1 }
            return Double(r.lowerBound - range.lowerBound) / span...Double(r.upperBound - range.lowerBound) / span
        }
        // Auto focus without faces and without a chosen point: on the subject found from depth.
        let subject = p[Self.focus] == "auto" && !p.isGiven(Self.point) ? (try? SubjectCut.subjectPoint(c)) ?? nil : nil
        let point = subject ?? p[Self.point] ?? (0.5, 0.5)
        let side = p[Self.rectSize]
        let aspect = Double(c.photo.width) / Double(max(1, c.photo.height))
        switch p[Self.focus] {
        case "everything":
            return 0...1
        case "auto" where !DepthSupport.faces(c).isEmpty:
            // Every face in focus: the union of the faces' disparity ranges (their central halves, so the
            // background around a head does not widen the range).
            var lo = Double.infinity, hi = -Double.infinity
            for f in DepthSupport.faces(c) {
                if let r = AreaMinMax.inside(disparity, x: f.x + f.width / 4, y: f.y + f.height / 4, width: f.width / 2, height: f.height / 2) {
                    let n = normalised(r)
                    lo = min(lo, n.lowerBound); hi = max(hi, n.upperBound)
                }
            }
            if lo <= hi { return lo...hi }
            fallthrough
        case "rect":
            if let r = AreaMinMax.inside(disparity, x: point.x - side / 2, y: point.y - side * aspect / 2, width: side, height: side * aspect) {
                return normalised(r)
            }
            return 0...1
        default:
            let buffer = disparity
            if let v = DepthSupport.median(buffer, at: point, radius: 0.01) {
                let n = span > 0 ? (v - Double(range.lowerBound)) / span : 0
                return n...n
            }
            return 0...1
        }
    }

    static func build(_ inputs: EffectInputs, _ p: ResolvedParameters, _ c: EffectContext) throws -> BuiltNode {
        let image = try inputs.node("image")
        let disparity = try DepthSupport.disparity(try inputs.built("disparity"), c, effect: description.id)
        let range = try DepthSupport.range(disparity, c, effect: description.id)
        let native = try c.native(disparity)
        let focus = focusRange(native, range, p, c)
        let clampedFocus = min(1, max(0, focus.lowerBound))...min(1, max(0, focus.upperBound))
        if clampedFocus == 0...1 || p[Self.maxBlur] == 0 { return BuiltNode(image, role: .image) }
        let matte = inputs.optional("matte")?.node
        // The subject the matte covers: the median normalised disparity under it.
        var subject = (clampedFocus.lowerBound + clampedFocus.upperBound) / 2
        if let matte {
            let m = try c.evaluator.render(matte, RenderTarget(size: disparity.extent))
            let span = range.upperBound - range.lowerBound
            let under = zip(native.samples, m.samples).compactMap { d, a -> Float? in a >= 0.5 && !d.isNaN ? (d - range.lowerBound) / max(span, 1e-9) : nil }
            if let median = Statistics.percentile(under, 50) { subject = min(1, max(0, median)) }
        }
        let factor = p[Self.scaleFactor]
        let full = image.extent
        let small = full.scaled(by: factor)
        let source = try Primitives.resample(image, to: small, .bilinear)
        let radius = min(400, p[Self.maxBlur] / 100 * Double(small.width))
        let blur = try DepthBlur(aperture: p[Self.aperture], maxRadius: radius,
                                 focusNear: clampedFocus.lowerBound, focusFar: clampedFocus.upperBound,
                                 low: Double(range.lowerBound), high: Double(range.upperBound), subject: subject)
        var node = try Node(blur, matte.map { [source, disparity, $0] } ?? [source, disparity])
        node = try Primitives.resample(node, to: full, .bilinear)
        let span = Double(range.upperBound - range.lowerBound)
        return BuiltNode(node, role: .image, marker: Double(range.lowerBound) + clampedFocus.lowerBound * span)
    }
}
