/// 1 where the plane is at or above its own p-th percentile (over valid samples of the whole frame), else 0.
/// The percentile is numpy's linear one; holes give 0. Core Image has no single equivalent
/// (CIAreaHistogram + CIColorThreshold).
public struct PercentileThreshold: Filter {
    public static let info = FilterInfo(
        name: "percentileThreshold", coreImageName: "CIAreaHistogram + CIColorThreshold",
        summary: "Binary mask of the samples at or above the plane's p-th percentile.",
        parameters: [
            ParameterInfo("percentile", range: 0...100, unit: "%",
                          doc: "Which percentile of the valid samples to cut at."),
        ])

    public let percentile: Double

    public init(percentile: Double) throws {
        try Self.info.validate("percentile", percentile)
        self.percentile = percentile
    }

    public var parameterKey: String { "p=\(percentile)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0]
        guard let cut = Statistics.percentile(input.samples, percentile) else {
            return PixelBuffer(region: input.region, channels: 1, repeating: 0)
        }
        try context.checkCancelled()
        // v ≥ cut (a Double: the interpolated cut need not be a Float) is v ≥ the least Float not below cut,
        // a comparison in Float that vectorises.
        var floatCut = Float(cut)
        if Double(floatCut) < cut { floatCut = floatCut.nextUp }
        return PixelBuffer(region: input.region, channels: 1, samples: input.samples.map { $0 >= floatCut ? 1 : 0 })
    }
}

/// Maps the valid samples of a plane linearly so that its min becomes 0 and its max 1 (holes stay NaN; a
/// constant plane becomes 0). Core Image: CIAreaMinMax + CIColorMatrix.
public struct Normalize: Filter {
    public static let info = FilterInfo(name: "normalize", coreImageName: "CIAreaMinMax + CIColorMatrix",
                                        summary: "Rescale a plane's valid range to 0...1.")

    public init() {}

    public var parameterKey: String { "" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0]
        guard let range = Statistics.minMax(input.samples) else { return input }
        let lo = range.lowerBound, span = range.upperBound - range.lowerBound
        let inv: Float = span > 0 ? 1 / span : 0
        return PixelBuffer(region: input.region, channels: 1, samples: input.samples.map { ($0 - lo) * inv })
    }
}
