/// One lens warp read through another, sampled once: `outer` applied to what `inner` makes of the input.
///
/// Putting a correction's distortion back (`distort` over `correct`) in two steps reads the corrected frame near
/// its edges where `crop` already threw the photo away, so the round trip ends in the cropped frame's last pixels
/// stretched along the edges. Chained, each output pixel follows both maps to the photo itself: the round trip
/// returns the photo to within one bilinear sample, edges included, and is resampled once, not twice.
public struct LensWarpChain: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "lensWarpChain", coreImageName: nil,
        summary: "Two lens warps in one resampling: the second reads the first's output where the first's frame ends.",
        parameters: [])

    public let inner: LensWarp
    public let outer: LensWarp

    public init(inner: LensWarp, outer: LensWarp) {
        self.inner = inner
        self.outer = outer
    }

    public var parameterKey: String { "inner=(\(inner.parameterKey)),outer=(\(outer.parameterKey))" }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size)]
    }

    /// Where output pixel centre (fx, fy) of a `size` frame reads from in the input, or nil where a black border
    /// shows: the outer warp's beyond the inner's frame, or the inner warp's beyond the photo.
    public func sourcePosition(_ fx: Double, _ fy: Double, size: PixelSize) -> (x: Double, y: Double)? {
        func outside(_ p: (x: Double, y: Double)) -> Bool {
            p.x < 0 || p.y < 0 || p.x > Double(size.width) || p.y > Double(size.height)
        }
        let middle = outer.sourcePosition(fx, fy, size: size)
        if outer.border == .black && outside(middle) { return nil }
        let source = inner.sourcePosition(middle.x, middle.y, size: size)
        if inner.border == .black && outside(source) { return nil }
        return source
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, size = request.target.size
        let ch = input.channels
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                for row in rows {
                    for col in 0..<region.width {
                        let at = o.pointer + (row * region.width + col) * ch
                        guard let s = sourcePosition(Double(region.x + col) + 0.5, Double(region.y + row) + 0.5, size: size) else {
                            at.update(repeating: 0, count: ch)
                            continue
                        }
                        let x = min(max(s.x, 0), Double(size.width)), y = min(max(s.y, 0), Double(size.height))
                        input.sampleBilinear(Float(x), Float(y), into: at)
                    }
                }
            }
        }
    }
}
