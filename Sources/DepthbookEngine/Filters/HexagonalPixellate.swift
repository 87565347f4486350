/// Hexagonal pixellation: the picture becomes a honeycomb, each cell filled with the colour at its
/// centre. Core Image: CIHexagonalPixellate (inputScale = the cell size, inputCenter = a cell centre).
///
/// Cell centres lie on rows `scale`·√3/2 apart, every other row shifted by `scale`/2, so neighbouring
/// centres are `scale` apart; a pixel belongs to the nearest centre (a Voronoi cell of that lattice is a
/// hexagon).
/// The frame's origin is a centre. `scale` is in native pixels and scales with the render.
public struct HexagonalPixellate: Filter {
    public static let info = FilterInfo(
        name: "hexagonalPixellate", coreImageName: "CIHexagonalPixellate",
        summary: "Honeycomb of flat colour cells, each the colour at its centre.",
        parameters: [
            ParameterInfo("scale", label: "Cell size", range: 1...1000, default: 8, unit: "px",
                          doc: "Distance between neighbouring cell centres, native pixels."),
        ])

    public let scale: Double

    public init(scale: Double) throws {
        try Self.info.validate("scale", scale)
        self.scale = scale
    }

    public var parameterKey: String { "s=\(scale)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        return inputs[0]
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [grown(target, by: Int((scale * Double(target.size.width) / Double(extent.width)).rounded(.up)) + 1)]
    }

    /// The lattice centre nearest to the continuous position (x, y), for cells `s` apart.
    static func nearestCentre(_ x: Double, _ y: Double, spacing s: Double) -> (x: Double, y: Double) {
        let rowHeight = s * 0.8660254037844386   // √3/2
        let row = (y / rowHeight).rounded(.down)
        var best = (x: 0.0, y: 0.0), bestDistance = Double.infinity
        // The nearest centre lies in this row or the next; check both rows' two nearest columns.
        for r in [row, row + 1] {
            let shift = Int(r).isMultiple(of: 2) ? 0 : s / 2
            let column = ((x - shift) / s).rounded(.down)
            for c in [column, column + 1] {
                let cx = c * s + shift, cy = r * rowHeight
                let d = (cx - x) * (cx - x) + (cy - y) * (cy - y)
                if d < bestDistance { bestDistance = d; best = (cx, cy) }
            }
        }
        return best
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, frame = request.target.frame
        let s = scale * request.scale
        let ch = input.channels
        let inR = input.region
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            input.samples.withUnsafeBufferPointer { src in
                context.parallelRows(region.height) { rows in
                    for row in rows {
                        for col in 0..<region.width {
                            let c = Self.nearestCentre(Double(region.x + col) + 0.5, Double(region.y + row) + 0.5, spacing: s)
                            // The pixel under the centre, clamped to the frame and to what was rendered.
                            let sx = min(min(frame.maxX, inR.maxX) - 1, max(max(0, inR.x), Int(c.x.rounded(.down))))
                            let sy = min(min(frame.maxY, inR.maxY) - 1, max(max(0, inR.y), Int(c.y.rounded(.down))))
                            let from = ((sy - inR.y) * inR.width + (sx - inR.x)) * ch
                            let to = (row * region.width + col) * ch
                            for k in 0..<ch { o.pointer[to + k] = src[from + k] }
                        }
                    }
                }
            }
        }
    }
}
