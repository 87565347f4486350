import DepthbookEngine

/// The first image's colours at the second's brightness: each pixel scaled by luma(target) / luma(base)
/// (Rec.601, floored at 1e-4), clamped. Hue and saturation stay the base's; only light and shade change.
struct LumaTransfer: PointwiseFilter {
    static let info = FilterInfo(name: "lumaTransfer", coreImageName: nil,
                                 summary: "The base's colour at the target's luma: rgb × luma(target) / luma(base).")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .image])
        return .image
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let base = inputs[0], target = inputs[1]
        for i in 0..<count {
            let b = base + i * 3, t = target + i * 3
            // Black has no colour to keep and stays black (the luma is floored so nothing divides by 0).
            let k = Luma.rec601(t[0], t[1], t[2]) / max(Luma.rec601(b[0], b[1], b[2]), 1e-4)
            for c in 0..<3 { output[i * 3 + c] = min(1, max(0, b[c] * k)) }
        }
    }
}
