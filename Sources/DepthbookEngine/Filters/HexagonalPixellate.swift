/// Replaces every pixel by the colour at the centre of its hexagonal cell. Core Image: CIHexagonalPixellate.
///
/// Cell centres form a triangular lattice through `center`: rows `scale`·√3/2 apart, centres `scale` apart
/// in a row, odd rows shifted by half a cell; each pixel takes its nearest centre (so cells are hexagons)
/// and reads the pixel there (clamped to the frame). Lengths are native pixels, scaled with the render.
public struct HexagonalPixellate: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "hexagonalPixellate", coreImageName: "CIHexagonalPixellate",
        summary: "Hexagonal mosaic.",
        parameters: [
            ParameterInfo("scale", range: 1...1000, unit: "px", doc: "Distance between neighbouring cell centres."),
            ParameterInfo("centerX", range: -1e6...1e6, unit: "px", doc: "A cell centre (x), native pixels."),
            ParameterInfo("centerY", range: -1e6...1e6, unit: "px", doc: "A cell centre (y), native pixels."),
        ])

    public let scale: Double
    public let centerX: Double
    public let centerY: Double

    public init(scale: Double, centerX: Double = 0, centerY: Double = 0) throws {
        try Self.info.validate("scale", scale)
        try Self.info.validate("centerX", centerX)
        try Self.info.validate("centerY", centerY)
        self.scale = scale
        self.centerX = centerX
        self.centerY = centerY
    }

    public var parameterKey: String { "s=\(scale),c=\(centerX),\(centerY)" }

    /// The pixel holding the centre of the cell that contains pixel centre (x, y), at render scale `k`.
    func cellCentre(_ x: Double, _ y: Double, k: Double) -> (Int, Int) {
        let s = scale * k, h = s * 3.0.squareRoot() / 2
        let cx = centerX * k, cy = centerY * k
        let row = ((y - cy) / h).rounded()
        var best = (0.0, 0.0), bestD = Double.infinity
        for r in [row - 1, row, row + 1] {
            let shift = abs(r.truncatingRemainder(dividingBy: 2)) == 1 ? s / 2 : 0
            let col = ((x - cx - shift) / s).rounded()
            for c in [col - 1, col, col + 1] {
                let px = cx + shift + c * s, py = cy + r * h
                let d = (px - x) * (px - x) + (py - y) * (py - y)
                if d < bestD { bestD = d; best = (px, py) }
            }
        }
        return (Int(best.0.rounded(.down)), Int(best.1.rounded(.down)))
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let k = Double(target.size.width) / Double(extent.width)
        return [grown(target, by: Int((scale * k).rounded(.up)) + 2)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, k = request.scale, inR = input.region, ch = input.channels
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            input.samples.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                context.parallelRows(region.height) { rows in
                    for y in rows {
                        for x in 0..<region.width {
                            let (px, py) = cellCentre(Double(region.x + x) + 0.5, Double(region.y + y) + 0.5, k: k)
                            let sx = min(inR.maxX - 1, max(inR.x, px)) - inR.x, sy = min(inR.maxY - 1, max(inR.y, py)) - inR.y
                            for c in 0..<ch { o.pointer[(y * region.width + x) * ch + c] = s[(sy * inR.width + sx) * ch + c] }
                        }
                    }
                }
            }
        }
    }
}
