/// A rectangle of the input (native pixels) becomes the whole frame. Core Image: CICrop.
///
/// The rectangle is clipped to the input; an empty result is refused when the node is built. Outside the
/// frame nothing exists: every filter clamps to the frame's edge (Core Image's clampedToExtent behaviour).
public struct Crop: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "crop", coreImageName: "CICrop",
        summary: "Keep a rectangle of the picture.",
        parameters: [
            ParameterInfo("x", range: 0...65536, unit: "px", doc: "Left edge in native pixels."),
            ParameterInfo("y", range: 0...65536, unit: "px", doc: "Top edge in native pixels."),
            ParameterInfo("width", range: 1...65536, unit: "px", doc: "Width in native pixels."),
            ParameterInfo("height", range: 1...65536, unit: "px", doc: "Height in native pixels."),
        ])

    public let rect: PixelRect

    public init(_ rect: PixelRect) throws {
        try Self.info.validate("x", Double(rect.x))
        try Self.info.validate("y", Double(rect.y))
        try Self.info.validate("width", Double(rect.width))
        try Self.info.validate("height", Double(rect.height))
        self.rect = rect
    }

    public var parameterKey: String { "\(rect.x),\(rect.y),\(rect.width),\(rect.height)" }

    public func extent(inputs: [PixelSize]) -> PixelSize {
        rect.intersection(PixelRect(inputs.first ?? PixelSize(width: 0, height: 0))).size
    }

    /// The input frame at this render and the crop's origin in it.
    func window(_ target: RenderTarget, extent: PixelSize, inputExtent: PixelSize) -> (PixelSize, Int, Int) {
        let sx = Double(target.size.width) / Double(extent.width), sy = Double(target.size.height) / Double(extent.height)
        let size = PixelSize(width: max(1, Int((Double(inputExtent.width) * sx).rounded())),
                             height: max(1, Int((Double(inputExtent.height) * sy).rounded())))
        let clipped = rect.intersection(PixelRect(inputExtent))
        return (size, Int((Double(clipped.x) * sx).rounded()), Int((Double(clipped.y) * sy).rounded()))
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let (size, ox, oy) = window(target, extent: extent, inputExtent: inputExtents[0])
        let r = target.region
        let frame = PixelRect(size)
        var region = PixelRect(x: r.x + ox, y: r.y + oy, width: r.width, height: r.height).intersection(frame)
        if region.isEmpty { region = PixelRect(x: min(r.x + ox, size.width - 1), y: min(r.y + oy, size.height - 1), width: 1, height: 1) }
        return [RenderTarget(size: size, region: region)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, inR = input.region, ch = input.channels
        let (_, ox, oy) = window(request.target, extent: request.extent, inputExtent: request.inputExtents[0])
        return PixelBuffer(region: region, channels: ch) { out in
            for y in 0..<region.height {
                let sy = min(inR.maxY - 1, max(inR.y, region.y + y + oy)) - inR.y
                for x in 0..<region.width {
                    let sx = min(inR.maxX - 1, max(inR.x, region.x + x + ox)) - inR.x
                    for c in 0..<ch { out[(y * region.width + x) * ch + c] = input.samples[(sy * inR.width + sx) * ch + c] }
                }
            }
        }
    }
}
