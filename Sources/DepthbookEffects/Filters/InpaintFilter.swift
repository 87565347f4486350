import DepthbookEngine

/// Fills the area under a matte from its surroundings (push–pull: a weighted image pyramid, then each level's
/// holes filled from the coarser level), so a subject can be moved or shrunk without leaving a hole or a
/// ghost. The hole is the matte above 2 %, grown by `grow` pixels so soft hair edges do not bleed in.
///
/// Outside the grown hole the output is the input exactly. The fill is smooth: it continues the colours
/// around the hole, like the background seen out of focus.
struct InpaintFilter: Filter {
    static let placement = PixelPlacement.moved
    static let info = FilterInfo(
        name: "inpaintUnderMatte", coreImageName: nil,
        summary: "Fills the matted area from the surrounding pixels (push-pull pyramid).",
        parameters: [
            ParameterInfo("grow", range: 0...200, unit: "px",
                          doc: "Pixels by which the hole is grown beyond the matte's edge."),
        ])

    var grow: Double

    var parameterKey: String { "grow=\(grow)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        try Self.info.validate("grow", grow)
        return .image
    }

    /// The fill depends on the whole frame, so it is computed (and cached) whole.
    func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    func render(_ inputs: [PixelBuffer], _ request: DepthbookEngine.RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let scale = request.scale
        let image = inputs[0], matte = inputs[1]
        let w = image.width, h = image.height
        let radius = Int((grow * scale).rounded())
        var known = matte.samples.map { $0 > 0.02 ? Float(0) : Float(1) }
        Self.erodeKnown(&known, width: w, height: h, radius: radius)
        try context.checkCancelled()
        var colors = [Float](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) where known[i] > 0 {
            for c in 0..<3 { colors[i * 3 + c] = image.samples[i * 3 + c] }
        }
        let filled = Self.pushPull(colors: colors, weights: known, width: w, height: h)
        return PixelBuffer(region: image.region, channels: 3, samples: filled)
    }

    /// Grows the hole (weight 0) by `radius` pixels with a square element, exactly, in O(pixels):
    /// distance to the nearest hole along rows, then along columns.
    static func erodeKnown(_ known: inout [Float], width: Int, height: Int, radius: Int) {
        guard radius > 0 else { return }
        func pass(count: Int, length: Int, index: (Int, Int) -> Int) {
            var distance = [Int](repeating: 0, count: length)
            for line in 0..<count {
                var d = Int.max / 2
                for i in 0..<length {
                    d = known[index(line, i)] == 0 ? 0 : d + 1
                    distance[i] = d
                }
                d = Int.max / 2
                for i in stride(from: length - 1, through: 0, by: -1) {
                    d = known[index(line, i)] == 0 ? 0 : d + 1
                    distance[i] = min(distance[i], d)
                }
                for i in 0..<length where distance[i] <= radius { known[index(line, i)] = 0 }
            }
        }
        pass(count: height, length: width) { y, x in y * width + x }
        pass(count: width, length: height) { x, y in y * width + x }
    }

    /// Push–pull: sum 2 × 2 blocks of weighted colours and weights down to one pixel, then fill each level's
    /// missing weight from the bilinearly upsampled coarser level. Known pixels (weight 1) come back unchanged.
    static func pushPull(colors: [Float], weights: [Float], width: Int, height: Int) -> [Float] {
        var levels: [(c: [Float], w: [Float], width: Int, height: Int)] = [(colors, weights, width, height)]
        while let last = levels.last, last.width > 1 || last.height > 1 {
            let nw = (last.width + 1) / 2, nh = (last.height + 1) / 2
            var c = [Float](repeating: 0, count: nw * nh * 3), wt = [Float](repeating: 0, count: nw * nh)
            for y in 0..<last.height {
                for x in 0..<last.width {
                    let s = y * last.width + x, d = (y / 2) * nw + x / 2
                    wt[d] += last.w[s]
                    for k in 0..<3 { c[d * 3 + k] += last.c[s * 3 + k] }
                }
            }
            // Keep weights in 0...1 so a level mixes "known here" with "filled from above".
            for i in 0..<(nw * nh) where wt[i] > 1 {
                for k in 0..<3 { c[i * 3 + k] /= wt[i] }
                wt[i] = 1
            }
            levels.append((c, wt, nw, nh))
        }
        var above = levels[levels.count - 1]
        // The top pixel: normalise what is known, or grey when the whole frame was a hole.
        if above.w[0] > 0 { for k in 0..<3 { above.c[k] /= above.w[0] } } else { above.c = [0.5, 0.5, 0.5] }
        var filled = above.c
        for l in stride(from: levels.count - 2, through: 0, by: -1) {
            let level = levels[l]
            let cw = above.width, ch = above.height
            var out = level.c
            for y in 0..<level.height {
                let fy = min(max((Double(y) + 0.5) / 2 - 0.5, 0), Double(ch - 1))
                let y0 = Int(fy), y1 = min(y0 + 1, ch - 1), ty = Float(fy - Double(y0))
                for x in 0..<level.width {
                    let i = y * level.width + x
                    let missing = 1 - level.w[i]
                    if missing <= 0 { continue }
                    let fx = min(max((Double(x) + 0.5) / 2 - 0.5, 0), Double(cw - 1))
                    let x0 = Int(fx), x1 = min(x0 + 1, cw - 1), tx = Float(fx - Double(x0))
                    for k in 0..<3 {
                        let a = filled[(y0 * cw + x0) * 3 + k], b = filled[(y0 * cw + x1) * 3 + k]
                        let c = filled[(y1 * cw + x0) * 3 + k], d = filled[(y1 * cw + x1) * 3 + k]
                        let up = (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty
                        out[i * 3 + k] = level.c[i * 3 + k] + missing * up
                    }
                }
            }
            filled = out
            above = (out, level.w, level.width, level.height)
        }
        return filled
    }
}
