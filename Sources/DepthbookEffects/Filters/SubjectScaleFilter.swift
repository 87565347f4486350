import DepthbookEngine

/// Big Head's warp: the matted subject scaled about an anchor (its base), over a plate where the area the
/// original subject covered (grown a little, see `InpaintFilter`) is taken from a fill image.
///
/// Inputs: image, matte (plane), fill (the image with the subject inpainted; equal to the image elsewhere).
/// With a' the scaled matte at the pixel and q its pre-image:
/// `plate = image + (fill − image)·w`, `out = image(q)·a' + plate·(1 − a')`, where w = min(1, |scale − 1| / 0.05)
/// fades the fill in over the first 5 % of scaling. At scale 1, w = 0, q is the pixel itself and a' the
/// original matte, so the output is the input exactly; a few per cent away the old subject is fully gone.
///
/// With a `taper`, the scale eases from 1 near the anchor's row to `scale` at `taper` frame heights above it
/// (smoothstep): a portrait the frame cuts off below shrinks its head while its body keeps reaching the
/// bottom edge and the sides it reached, instead of leaving background in both bottom corners. Shrinking,
/// the pre-image's distance from the anchor, t / s(t), still grows with t, so the warp never folds.
struct SubjectScaleFilter: Filter {
    enum Output: String, Sendable { case composite, matte, plate }

    static let placement = PixelPlacement.moved
    static let info = FilterInfo(
        name: "subjectScale", coreImageName: nil,
        summary: "Scales the matted subject about its base and fills what it uncovers from a fill image.",
        parameters: [
            ParameterInfo("scale", range: 0.2...3, doc: "Subject size relative to the original."),
        ])

    var scale: Double
    /// The anchor in normalised frame coordinates (0...1).
    var anchorX: Double
    var anchorY: Double
    var output: Output
    /// Frame heights above the anchor over which the scale eases in from 1 (0: the same scale everywhere).
    var taper: Double = 0

    var parameterKey: String { "scale=\(scale),anchor=\(anchorX),\(anchorY),taper=\(taper),out=\(output.rawValue)" }

    /// The scale on a row `rise` pixels above the anchor, for a taper `span` pixels long: 1 over the span's
    /// lower third (a portrait's shoulders and chest stay where the frame cuts them), then easing to `scale`.
    static func scale(_ scale: Double, rise: Double, span: Double) -> Double {
        guard span > 0 else { return scale }
        let t = min(1, max(0, (rise / span - 1.0 / 3) * 1.5))
        return 1 + (scale - 1) * t * t * (3 - 2 * t)
    }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane, .image])
        try Self.info.validate("scale", scale)
        return output == .matte ? .plane : .image
    }

    private func anchor(_ size: PixelSize) -> (x: Double, y: Double) {
        (anchorX * Double(size.width), anchorY * Double(size.height))
    }

    func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let source = mappedRect(target.region, anchor: anchor(target.size), factor: 1 / scale, margin: 2, frame: target.frame)
        let both = PixelRect(x: min(source.x, target.region.x), y: min(source.y, target.region.y),
                             width: max(source.maxX, target.region.maxX) - min(source.x, target.region.x),
                             height: max(source.maxY, target.region.maxY) - min(source.y, target.region.y))
        let read = target.with(region: both.outset(by: 1))
        return [read, read, target]
    }

    func render(_ inputs: [PixelBuffer], _ request: DepthbookEngine.RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let target = request.target
        let image = BilinearReader(buffer: inputs[0]), matte = BilinearReader(buffer: inputs[1])
        let imageBuffer = inputs[0], fill = inputs[2]
        let region = target.region, frame = target.frame
        let (ax, ay) = anchor(target.size)
        let identity = scale == 1, span = taper * Double(target.size.height)
        let fade = Float(min(1, abs(scale - 1) / 0.05))
        let channels = output == .matte ? 1 : 3
        let mode = output
        return PixelBuffer(region: region, channels: channels) { out in
            let o = SendableOutput(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                var subject = SIMD4<Float>(repeating: 0)
                for row in rows {
                    let y = region.y + row
                    // Every pre-image lies between the pixel and its pre-image at the full scale, inside the
                    // region `inputTargets` asks for.
                    let s = Self.scale(scale, rise: ay - (Double(y) + 0.5), span: span)
                    for col in 0..<region.width {
                        let x = region.x + col
                        // The pre-image of this pixel's centre under the scaling.
                        let qx = identity ? Double(x) + 0.5 : ax + (Double(x) + 0.5 - ax) / s
                        let qy = identity ? Double(y) + 0.5 : ay + (Double(y) + 0.5 - ay) / s
                        let scaledAlpha = min(1, max(0, matte.value(x: qx, y: qy, frame: frame)))
                        let index = row * region.width + col
                        if mode == .matte {
                            o.pointer[index] = scaledAlpha
                            continue
                        }
                        image.read(x: qx, y: qy, into: &subject)
                        for c in 0..<3 {
                            let here = imageBuffer[frameX: x, frameY: y, channel: c]
                            let plate = here + (fill[frameX: x, frameY: y, channel: c] - here) * fade
                            o.pointer[index * 3 + c] = mode == .plate ? plate : subject[c] * scaledAlpha + plate * (1 - scaledAlpha)
                        }
                    }
                }
            }
        }
    }
}

/// The output pointer handed to row bands that write disjoint rows.
struct SendableOutput: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    init(_ pointer: UnsafeMutablePointer<Float>) { self.pointer = pointer }
}
