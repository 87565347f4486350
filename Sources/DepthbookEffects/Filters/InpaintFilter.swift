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

    /// Push–pull (`PushPull`, the engine's): known pixels come back unchanged, holes continue their surroundings.
    static func pushPull(colors: [Float], weights: [Float], width: Int, height: Int) -> [Float] {
        PushPull.fill(colors: colors, weights: weights, channels: 3, width: width, height: height)
    }
}
