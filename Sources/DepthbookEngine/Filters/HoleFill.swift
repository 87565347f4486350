/// Fills the holes (NaN) of a depth or disparity plane from the valid values around them, by push-pull:
/// halve the plane repeatedly, each coarse pixel the mean of the valid pixels under it (holes never enter
/// a mean), until nothing is missing; then fill each level's holes by bilinear interpolation of the
/// coarser, filled level. Valid pixels are never changed; an all-hole plane stays all holes.
/// Core Image has no equivalent (AVDepthData's isDepthDataFiltered is the camera's own fill).
public struct HoleFill: Filter {
    public static let info = FilterInfo(name: "holeFill", coreImageName: nil,
                                        summary: "Fill depth holes from the surrounding valid values (push-pull).")

    public init() {}

    public var parameterKey: String { "" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0]
        let filled = Self.fill(input.samples, width: input.width, height: input.height)
        return PixelBuffer(region: input.region, channels: 1, samples: filled)
    }

    static func fill(_ samples: [Float], width: Int, height: Int) -> [Float] {
        if !samples.contains(where: \.isNaN) || !samples.contains(where: { !$0.isNaN }) { return samples }
        // Push: means of valid children.
        let cw = (width + 1) / 2, chh = (height + 1) / 2
        var coarse = [Float](repeating: .nan, count: cw * chh)
        for y in 0..<chh {
            for x in 0..<cw {
                var sum: Float = 0, n: Float = 0
                for dy in 0..<2 {
                    for dx in 0..<2 {
                        let sx = 2 * x + dx, sy = 2 * y + dy
                        if sx < width, sy < height {
                            let v = samples[sy * width + sx]
                            if !v.isNaN { sum += v; n += 1 }
                        }
                    }
                }
                if n > 0 { coarse[y * cw + x] = sum / n }
            }
        }
        let coarseFilled = (width == 1 && height == 1) ? coarse : fill(coarse, width: cw, height: chh)
        // Pull: holes take the bilinear value of the coarser level at their centre.
        var out = samples
        for y in 0..<height {
            for x in 0..<width where out[y * width + x].isNaN {
                let cx = (Double(x) + 0.5) / 2 - 0.5, cy = (Double(y) + 0.5) / 2 - 0.5
                let x0 = Int(cx.rounded(.down)), y0 = Int(cy.rounded(.down))
                let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
                func at(_ x: Int, _ y: Int) -> Float { coarseFilled[min(chh - 1, max(0, y)) * cw + min(cw - 1, max(0, x))] }
                let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * fx
                let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * fx
                out[y * width + x] = top + (bottom - top) * fy
            }
        }
        return out
    }
}
