import DepthbookEngine

/// The one place effects turn into engine nodes: each function applies one primitive. Identity parameters
/// add no node at all, so "no change" is exactly the input (and costs nothing).
enum Primitives {
    static func photo(_ c: EffectContext, _ plane: PhotoPlane) throws -> Node {
        try Node(PhotoSource(photo: c.photo, plane: plane, photoID: c.photoID))
    }

    static func resample(_ node: Node, to size: PixelSize, _ method: ResamplingMethod) throws -> Node {
        if node.extent == size { return node }
        return try node.applying(Resample(to: size, method: method))
    }

    static func gaussianBlur(_ node: Node, sigma: Double) throws -> Node {
        sigma <= 0 ? node : try node.applying(GaussianBlur(sigma: sigma))
    }

    /// Where a feathered mask's soft edge lies: inside the mask (nothing spreads past its edge, so a treated
    /// foreground does not glow into the background), or centred on the edge, as the talks' blur does.
    enum FeatherEdge: String {
        case inside, centred
    }

    /// A feathered mask: Gaussian blur, then clamped back into 0...1 (the sum of weights may round above 1),
    /// its ramp moved inside the edge unless `edge` is `.centred`.
    static func feather(_ mask: Node, sigma: Double, edge: FeatherEdge = .inside) throws -> Node {
        guard sigma > 0 else { return mask }
        let blurred = try gaussianBlur(mask, sigma: sigma)
        return edge == .inside ? try blurred.applying(FeatherInside()) : try blurred.applying(ClampUnit())
    }

    static func discBlur(_ node: Node, radius: Double) throws -> Node {
        radius < 0.5 ? node : try node.applying(DiscBlur(radius: min(radius, 200)))
    }

    static func closing(_ node: Node, radius: Double) throws -> Node {
        radius < 0.5 ? node : try node.applying(Morphology(.close, shape: .disc, radius: min(radius, 256)))
    }

    /// 1 at or above `cut` (or at or below, for metric depth), else 0; holes 0.
    static func threshold(_ node: Node, _ cut: Double, keepBelow: Bool = false) throws -> Node {
        keepBelow ? try node.applying(ThresholdBelow(cut: Float(cut))) : try node.applying(Threshold(cut))
    }

    static func colorMatrix(_ node: Node, _ matrix: [Double], clamp: Bool = true) throws -> Node {
        try node.applying(ColorMatrix(matrix: matrix, clamp: clamp))
    }

    static func exposure(_ node: Node, ev: Double) throws -> Node {
        ev == 0 ? node : try node.applying(Exposure(ev: ev))
    }

    /// Core Image's Noir as the engine approximates it: Rec.601 luma with contrast ×1.5, clamped.
    static func noir(_ node: Node) throws -> Node { try node.applying(PhotoEffect(.noir)) }

    /// Saturation about Rec.601 luma, then contrast about 0.5, then brightness, as one clamped matrix.
    static func colorControls(_ node: Node, saturation s: Double, contrast k: Double, brightness b: Double) throws -> Node {
        if s == 1 && k == 1 && b == 0 { return node }
        let luma = Luma.weights
        var m = [Double]()
        for row in 0..<3 {
            for col in 0..<3 { m.append(k * ((row == col ? s : 0) + (1 - s) * luma[col])) }
            m.append(0.5 * (1 - k) + b)
        }
        return try colorMatrix(node, m)
    }

    static func vibrance(_ node: Node, amount: Double) throws -> Node {
        amount == 0 ? node : try node.applying(Vibrance(amount: amount))
    }

    static func gamma(_ node: Node, _ power: Double) throws -> Node {
        power == 1 ? node : try node.applying(Gamma(power: power))
    }

    static func maximumComponent(_ node: Node) throws -> Node { try node.applying(ComponentExtremum(maximum: true)) }

    static func blend(_ foreground: Node, _ background: Node, mask: Node) throws -> Node {
        try Node(BlendWithMask(), [foreground, background, mask])
    }

    /// The subject's own colour at the matte's soft edge (`MatteForeground`), so a treatment of the subject does
    /// not carry the background's light into its rim; blend it through `fittedMatte`.
    static func matteForeground(_ image: Node, matte: Node) throws -> Node {
        try Node(MatteForeground(output: .colour), [image, matte])
    }

    /// The matte fitted to the photo's edge where it is soft or misplaced, the α `matteForeground` solved with.
    static func fittedMatte(_ image: Node, matte: Node) throws -> Node {
        try Node(MatteForeground(output: .matte), [image, matte])
    }

    static func scaleMask(_ node: Node, by factor: Double) throws -> Node {
        factor == 1 ? node : try node.applying(ScalePlane(factor: Float(factor)))
    }

    /// A bundled background at the photo's size, painted at whatever size each render asks (`BackgroundFilter`).
    static func background(_ id: String, context c: EffectContext) throws -> Node {
        try Node(BackgroundFilter(id: id, size: PixelSize(width: c.photo.width, height: c.photo.height)))
    }

    /// A background the user uploaded: cropped about its centre to the photo's aspect ratio (it covers the
    /// frame, never stretched) and resampled once (Lanczos) to at most 1600 px; renders reuse it. A photo
    /// has only its own pixels: enlarging it to a 12 MP export cannot add any.
    static func uploadedBackground(_ id: String, effect: String, context c: EffectContext) throws -> Node {
        guard let uploads = c.uploads else {
            throw EffectError.badInput(effect: effect, message: "uploaded backgrounds are read by the studio; here there is no uploads folder")
        }
        let size = backgroundSize(c)
        let image = try BackgroundCache.shared.image(key: "upload:\(id):\(size)") {
            let source = try uploads.image(upload: id)
            let node = try Node(PhotoSource(photo: Photo(image: source), plane: .image, photoID: "upload:\(id)"))
                .applying(Crop(coverRect(of: PixelSize(width: source.width, height: source.height), aspect: size)))
                .applying(Resample(to: size, method: .lanczos))
            return try c.evaluator.renderBytes(node, RenderTarget(size: size))
        }
        return try Node(PhotoSource(photo: Photo(image: image), plane: .image, photoID: "background:upload:\(id):\(size)"))
    }

    /// The centred rectangle of `source` with the aspect ratio of `aspect`, as large as fits.
    static func coverRect(of source: PixelSize, aspect: PixelSize) -> PixelRect {
        let target = Double(aspect.width) / Double(max(1, aspect.height))
        if Double(source.width) / Double(max(1, source.height)) > target {
            let width = min(source.width, max(1, Int((Double(source.height) * target).rounded())))
            return PixelRect(x: (source.width - width) / 2, y: 0, width: width, height: source.height)
        }
        let height = min(source.height, max(1, Int((Double(source.width) / target).rounded())))
        return PixelRect(x: 0, y: (source.height - height) / 2, width: source.width, height: height)
    }

    private static func backgroundSize(_ c: EffectContext) -> PixelSize {
        let factor = min(1, 1600 / Double(max(1, max(c.photo.width, c.photo.height))))
        return PixelSize(width: max(1, Int((Double(c.photo.width) * factor).rounded())),
                         height: max(1, Int((Double(c.photo.height) * factor).rounded())))
    }
}
