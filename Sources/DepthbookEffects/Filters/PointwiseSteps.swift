import DepthbookEngine

// Small per-pixel operations on masks the effects need and the engine does not offer. Each is a
// `PointwiseFilter`, so the engine fuses them into its row-by-row chains like its own. Colour filters
// (exposure, gamma, vibrance, Noir, maximum component) are the engine's own.

/// 1 where the plane is at or below `cut` (NaN holes give 0): thresholding metric depth, where near is small.
struct ThresholdBelow: PointwiseFilter {
    static let info = FilterInfo(name: "thresholdBelow", coreImageName: nil, summary: "1 where value ≤ cut, else 0 (holes 0).")
    let cut: Float
    var parameterKey: String { "t=\(cut)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0]
        for i in 0..<count { output[i] = src[i] <= cut ? 1 : 0 }
    }
}

/// A plane times a constant: a mask at partial strength.
struct ScalePlane: PointwiseFilter {
    static let info = FilterInfo(name: "scalePlane", coreImageName: nil, summary: "Plane × factor.")
    let factor: Float
    var parameterKey: String { "k=\(factor)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        for i in 0..<count { output[i] = inputs[0][i] * factor }
    }
}

/// Clamps a plane to 0...1: a blurred mask can overshoot 1 by a rounding error, and masks must not.
struct ClampUnit: PointwiseFilter {
    static let info = FilterInfo(name: "clampUnit", coreImageName: "CIColorClamp", summary: "Clamp a plane to 0...1.")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        for i in 0..<count { output[i] = min(1, max(0, inputs[0][i])) }
    }
}

/// A blurred mask's ramp moved inside its edge: 2·x − 1, clamped to 0...1. Blurring a mask puts its 0.5 line on
/// the edge and spreads the rest outward, so a treated foreground glowed a few pixels into the background; after
/// this the mask is 0 from the edge outward and rises over the same width inward.
struct FeatherInside: PointwiseFilter {
    static let info = FilterInfo(name: "featherInside", coreImageName: nil, summary: "A blurred mask's soft edge kept inside it: clamp(2x − 1).")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        for i in 0..<count { output[i] = min(1, max(0, 2 * inputs[0][i] - 1)) }
    }
}
