/// Depth (m) ↔ disparity (1/m): v ↦ 1/v; holes, zeros and negatives become holes (NaN).
/// Core Image: CIDepthToDisparity / CIDisparityToDepth (the same reciprocal both ways).
public struct DepthDisparity: PointwiseFilter {
    public static let info = FilterInfo(
        name: "depthDisparity", coreImageName: "CIDepthToDisparity / CIDisparityToDepth",
        summary: "Reciprocal of a depth or disparity plane; non-positive values become holes.")

    public init() {}

    public var parameterKey: String { "" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0]
        for i in 0..<count {
            let v = src[i]
            output[i] = v > 0 ? 1 / v : .nan
        }
    }
}
