/// What to render: the whole frame at some output size, and the part of it wanted.
///
/// Every node covers the same field of view (the upright photo). `size` says how many pixels the whole
/// field of view has in this render (the full-resolution size for a 1:1 crop, 1280×960 for a preview of a
/// 4:3 photo); `region` is the rectangle of that frame to compute. A node renders only `region`, and reads
/// from its inputs only what that region needs.
public struct RenderTarget: Hashable, Sendable, CustomStringConvertible {
    public var size: PixelSize
    public var region: PixelRect

    /// A target for `region` of a frame of `size`; the region is clipped to the frame.
    public init(size: PixelSize, region: PixelRect) {
        self.size = size
        self.region = region.intersection(PixelRect(size))
    }

    /// The whole frame at `size`.
    public init(size: PixelSize) {
        self.init(size: size, region: PixelRect(size))
    }

    public var frame: PixelRect { PixelRect(size) }
    public var description: String { "\(region) of \(size)" }

    /// The same target with another region of the same frame.
    public func with(region: PixelRect) -> RenderTarget { RenderTarget(size: size, region: region) }
}
