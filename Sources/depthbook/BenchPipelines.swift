import DepthbookEngine

/// P1, P2 and P3 of `../shared/peers/README.md` as engine recipes, with the peers' parameters (pixels of
/// the buffer each stage acts on, which is the native size of that plane, so the render scale is 1).
struct BenchPipeline {
    /// "P1", "P2:disc", "P3".
    let name: String
    /// The root node (an RGB image) and the named stages the peers time separately, in pipeline order.
    let root: Node
    let stages: [(name: String, node: Node)]
    let size: PixelSize

    static let luma: [Double] = Luma.weights

    static func make(_ id: String, inputs: BenchInputs) throws -> BenchPipeline {
        let image = try Node(PlaneOrPhoto.image(inputs.rgb))
        let full = PixelSize(width: inputs.width, height: inputs.height)
        switch id {
        case "P1":
            let disparity = try Node(PlaneSource(inputs.disparity, id: "disparity", hasHoles: true))
            let mask = try disparity.applying(PercentileThreshold(percentile: 60))
            let closed = try mask.applying(Morphology(.close, shape: .disc, radius: 4))
            let up = try closed.applying(Resample(to: full, method: .bilinear))
            let alpha = try up.applying(GaussianBlur(sigma: 6))
            // Noir: g = luma; clip(((g − 0.5)·1.5 + 0.5)·2^0.5) = clip(1.5√2·g − 0.25√2), on all channels.
            let gain = 1.5 * 2.0.squareRoot(), bias = -0.25 * 2.0.squareRoot()
            let row = luma.map { $0 * gain } + [bias]
            let noir = try image.applying(ColorMatrix(matrix: row + row + row))
            let dark = try image.applying(ColorMatrix(matrix: [0.35, 0, 0, 0, 0, 0.35, 0, 0, 0, 0, 0.35, 0]))
            let out = try Node(BlendWithMask(), [noir, dark, alpha])
            return BenchPipeline(name: "P1", root: out, stages: [
                ("threshold", mask), ("close", closed), ("upscale", up), ("feather", alpha),
                ("noir", noir), ("darken", dark), ("composite", out),
            ], size: full)
        case "P2":
            let matte = try Node(PlaneSource(inputs.matte, id: "matte"))
            let alpha = try matte.applying(Resample(to: full, method: .bilinear))
            let bokeh = try image.applying(DiscBlur(radius: 20))
            let bg = try bokeh.applying(ColorMatrix(matrix: [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0]))
            let fg = try image.applying(ColorMatrix(matrix: p2Matrix()))
            let out = try Node(BlendWithMask(), [fg, bg, alpha])
            return BenchPipeline(name: "P2:disc", root: out, stages: [
                ("upscale", alpha), ("bokeh", bokeh), ("exposure", bg), ("color", fg), ("blend", out),
            ], size: full)
        case "P3":
            let skin = try Node(PlaneSource(inputs.skin, id: "skin"))
            let alpha = try skin.applying(Resample(to: full, method: .bilinear))
            let makeup = try image.applying(ComponentExtremum(maximum: true)).applying(Gamma(power: 0.5))
            let out = try Node(BlendWithMask(), [makeup, image, alpha])
            return BenchPipeline(name: "P3", root: out, stages: [("upscale", alpha), ("makeup", makeup), ("blend", out)],
                                 size: full)
        default:
            throw RenderError.badInputs(filter: "bench", message: "unknown pipeline \(id) (P1, P2, P3)")
        }
    }

    /// Saturation ×1.2 about Rec.601 luma, then contrast ×1.1 about 0.5, as one 3×4 matrix (common.p2_color_matrix).
    static func p2Matrix() -> [Double] {
        let s = 1.2, c = 1.1
        var m: [Double] = []
        for row in 0..<3 {
            for col in 0..<3 { m.append(c * ((row == col ? s : 0) + (1 - s) * luma[col])) }
            m.append(0.5 * (1 - c))
        }
        return m
    }
}

/// The benchmark's RGB source: the photo image read as bytes (fused chains read it directly).
enum PlaneOrPhoto {
    static func image(_ rgb: RGBImage8) throws -> PhotoSource {
        try PhotoSource(photo: Photo(image: rgb), plane: .image, photoID: "bench-\(rgb.width)x\(rgb.height)")
    }
}
