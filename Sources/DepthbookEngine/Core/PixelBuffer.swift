/// Computed pixels of one node: a rectangle of a frame, with 1 (plane) or 3 (RGB) interleaved float channels.
///
/// RGB values are sRGB-encoded and nominally 0...1 (as the photo stores them); planes hold whatever the node
/// means (disparity in 1/m, a 0...1 mask), with NaN for holes. `region` is where the samples sit in the frame.
public struct PixelBuffer: Sendable {
    public let region: PixelRect
    public let channels: Int
    /// `region.pixelCount * channels` samples, row-major.
    public var samples: [Float]

    public init(region: PixelRect, channels: Int, samples: [Float]) {
        precondition(samples.count == region.pixelCount * channels, "sample count must match the region")
        self.region = region
        self.channels = channels
        self.samples = samples
    }

    public init(region: PixelRect, channels: Int, repeating value: Float = 0) {
        self.init(region: region, channels: channels,
                  samples: [Float](repeating: value, count: region.pixelCount * channels))
    }

    /// Allocates without a meaningful initial value, then lets `fill` write every sample.
    public init(region: PixelRect, channels: Int,
                fill: (inout UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows {
        let count = region.pixelCount * channels
        let samples = try [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(&buffer)
            initialized = count
        }
        self.init(region: region, channels: channels, samples: samples)
    }

    public var width: Int { region.width }
    public var height: Int { region.height }
    public var byteCount: Int { samples.count * MemoryLayout<Float>.stride }

    /// Sample at frame coordinates (x, y); the caller keeps (x, y) inside `region`.
    @inlinable
    public subscript(frameX x: Int, frameY y: Int, channel c: Int) -> Float {
        samples[((y - region.y) * region.width + (x - region.x)) * channels + c]
    }

    /// The part of this buffer inside `rect` (which must lie within `region`).
    public func cropped(to rect: PixelRect) -> PixelBuffer {
        if rect == region { return self }
        precondition(region.contains(rect), "crop must lie within the buffer")
        let rowLength = rect.width * channels
        return PixelBuffer(region: rect, channels: channels) { out in
            samples.withUnsafeBufferPointer { src in
                for row in 0..<rect.height {
                    let from = ((rect.y - region.y + row) * region.width + (rect.x - region.x)) * channels
                    let to = row * rowLength
                    for i in 0..<rowLength { out[to + i] = src[from + i] }
                }
            }
        }
    }

    /// The buffer as a raster (its origin forgotten).
    public var raster: Raster<Float> {
        Raster(width: region.width, height: region.height, channels: channels, samples: samples)
    }
}
