/// A rectangle of samples, row-major, with `channels` interleaved values per pixel.
///
/// Every plane of a photo is a raster: the image (`Raster<UInt8>`, 3 channels, sRGB-encoded),
/// depth (`Raster<Float>`, 1 channel, NaN for holes) and mattes (`Raster<Float>`, 1 channel, linear 0...1).
public struct Raster<Element: Sendable & Equatable>: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    /// `width * height * channels` samples; pixel (x, y) starts at `(y * width + x) * channels`.
    public var samples: [Element]

    public init(width: Int, height: Int, channels: Int, samples: [Element]) {
        precondition(width >= 0 && height >= 0 && channels > 0, "raster dimensions must be non-negative")
        precondition(samples.count == width * height * channels, "sample count must match the dimensions")
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }

    public init(width: Int, height: Int, channels: Int, repeating value: Element) {
        self.init(width: width, height: height, channels: channels,
                  samples: [Element](repeating: value, count: width * height * channels))
    }

    public var pixelCount: Int { width * height }

    public subscript(x: Int, y: Int, c: Int) -> Element {
        get { samples[(y * width + x) * channels + c] }
        set { samples[(y * width + x) * channels + c] = newValue }
    }
}

/// An 8-bit interleaved RGB image, as decoders deliver it.
public typealias RGBImage8 = Raster<UInt8>
/// A single-channel float plane: depth, disparity, a matte or a mask.
public typealias FloatPlane = Raster<Float>

extension Raster where Element == Float {
    /// Minimum and maximum over the non-NaN samples, or nil when every sample is NaN.
    public func validRange() -> ClosedRange<Float>? {
        var lo = Float.infinity, hi = -Float.infinity
        for v in samples where !v.isNaN {
            if v < lo { lo = v }
            if v > hi { hi = v }
        }
        return lo <= hi ? lo...hi : nil
    }

    /// How many samples are NaN (holes in a depth map).
    public var holeCount: Int { samples.reduce(0) { $0 + ($1.isNaN ? 1 : 0) } }
}
