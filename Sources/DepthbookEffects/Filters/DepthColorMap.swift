import DepthbookEngine

/// Shows a depth or disparity plane in colour, as the TrueDepth Streamer does: near red, far blue, a
/// spectrum between, holes black. `near` and `far` are the plane's values at the two ends.
struct DepthColorMap: PointwiseFilter {
    static let info = FilterInfo(name: "depthColorMap", coreImageName: nil, summary: "Plane to a red (near) … blue (far) spectrum.")

    let near: Float
    let far: Float
    var parameterKey: String { "near=\(near),far=\(far)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .image
    }

    /// Stops of the spectrum from near (t = 0) to far (t = 1).
    static let stops: [SIMD3<Float>] = [
        SIMD3(0.85, 0.1, 0.1), SIMD3(1.0, 0.55, 0.1), SIMD3(0.95, 0.9, 0.2), SIMD3(0.3, 0.8, 0.35),
        SIMD3(0.15, 0.6, 0.85), SIMD3(0.15, 0.2, 0.7),
    ]

    static func color(_ t: Float) -> SIMD3<Float> {
        let x = min(max(t, 0), 1) * Float(stops.count - 1)
        let i = min(Int(x), stops.count - 2)
        return stops[i] + (stops[i + 1] - stops[i]) * (x - Float(i))
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0], span = far - near
        for i in 0..<count {
            let v = src[i]
            let c = v.isNaN ? SIMD3<Float>(0, 0, 0) : Self.color(span == 0 ? 0 : (v - near) / span)
            output[i * 3] = c.x; output[i * 3 + 1] = c.y; output[i * 3 + 2] = c.z
        }
    }
}
