import DepthbookEngine

/// Marching: copies of the matted subject stepping away (or towards the camera) in a line, drawn back to
/// front over the photo. Copy k (k = 0 is the subject itself) is scaled by `scaleStep`^k about the subject's
/// base, moved `spacing`·k of the frame width sideways, and its base slides towards the horizon as it shrinks.
///
/// Each output pixel visits only the copies whose box contains it, nearest first, and stops as soon as a
/// copy hides everything behind it: the cost follows the visible area of the copies, not their count.
struct MarchingFilter: Filter {
    enum Output: String, Sendable { case composite, coverage }

    static let placement = PixelPlacement.moved
    static let info = FilterInfo(
        name: "marching", coreImageName: nil,
        summary: "Copies of the matted subject in a receding or advancing line, drawn back to front.",
        parameters: [
            ParameterInfo("count", range: 1...200, doc: "Subjects in the picture, the original included."),
            ParameterInfo("spacing", range: -1...1, unit: "frame widths",
                          doc: "Sideways step between copies (negative: to the left)."),
            ParameterInfo("scaleStep", range: 0.3...1.5,
                          doc: "Size of each copy relative to the one before (below 1 recedes, above 1 advances)."),
        ])

    var count: Int
    var spacing: Double
    var scaleStep: Double
    /// Where the horizon is, as a fraction of the frame height: receding bases slide towards it.
    var horizon: Double
    /// The subject's box in normalised frame coordinates (minX, minY, maxX, maxY); its base is the anchor.
    var subject: SubjectBounds
    var output: Output

    var parameterKey: String {
        "n=\(count),dx=\(spacing),s=\(scaleStep),h=\(horizon),box=\(subject.minX),\(subject.minY),\(subject.maxX),\(subject.maxY),out=\(output.rawValue)"
    }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        try Self.info.validate("count", Double(count))
        try Self.info.validate("spacing", spacing)
        try Self.info.validate("scaleStep", scaleStep)
        return output == .coverage ? .plane : .image
    }

    /// Copies come from anywhere in the subject's box, so the whole frame of each input is read.
    func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size), RenderTarget(size: target.size)]
    }

    /// One copy's placement in frame pixels.
    struct Copy {
        var scale: Double
        var anchor: (x: Double, y: Double)
        var minX: Double, minY: Double, maxX: Double, maxY: Double
    }

    /// Copies in drawing order: farthest first.
    func copies(frame size: PixelSize) -> [Copy] {
        let w = Double(size.width), h = Double(size.height)
        let box = (minX: subject.minX * w, minY: subject.minY * h, maxX: subject.maxX * w, maxY: subject.maxY * h)
        let base = ((box.minX + box.maxX) / 2, box.maxY)
        let horizonY = horizon * h
        var all = [Copy]()
        var s = 1.0
        for k in 0..<count {
            let anchor = (base.0 + Double(k) * spacing * w, horizonY + (base.1 - horizonY) * s)
            all.append(Copy(scale: s, anchor: anchor,
                            minX: anchor.0 + (box.minX - base.0) * s, minY: anchor.1 + (box.minY - base.1) * s,
                            maxX: anchor.0 + (box.maxX - base.0) * s, maxY: anchor.1 + (box.maxY - base.1) * s))
            s *= scaleStep
        }
        // Smaller copies are farther away: draw them first.
        return all.enumerated().sorted { a, b in
            a.element.scale != b.element.scale ? a.element.scale < b.element.scale : a.offset > b.offset
        }.map(\.element)
    }

    func render(_ inputs: [PixelBuffer], _ request: DepthbookEngine.RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let target = request.target
        let imageBuffer = inputs[0]
        let image = BilinearReader(buffer: inputs[0]), matte = BilinearReader(buffer: inputs[1])
        let region = target.region, frame = target.frame
        let w = Double(target.size.width), h = Double(target.size.height)
        let box = (minX: subject.minX * w, minY: subject.minY * h, maxX: subject.maxX * w, maxY: subject.maxY * h)
        let base = ((box.minX + box.maxX) / 2, box.maxY)
        let placed = copies(frame: target.size)
        let coverageOnly = output == .coverage
        return PixelBuffer(region: region, channels: coverageOnly ? 1 : 3) { out in
            let o = SendableOutput(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                var sample = SIMD4<Float>(repeating: 0)
                for row in rows {
                    let py = Double(region.y + row) + 0.5
                    // Nearest copy first: composite front to back and stop once the pixel is (nearly) opaque,
                    // which gives the same picture as drawing back to front.
                    let active = placed.reversed().filter { py >= $0.minY && py <= $0.maxY }
                    for col in 0..<region.width {
                        let x = region.x + col, px = Double(x) + 0.5
                        var color = SIMD4<Float>(repeating: 0)
                        var transmittance: Float = 1
                        for copy in active where px >= copy.minX && px <= copy.maxX {
                            let qx = base.0 + (px - copy.anchor.x) / copy.scale
                            let qy = base.1 + (py - copy.anchor.y) / copy.scale
                            let alpha = min(1, max(0, matte.value(x: qx, y: qy, frame: frame)))
                            if alpha <= 0 { continue }
                            if !coverageOnly {
                                image.read(x: qx, y: qy, into: &sample)
                                color = color + sample * (alpha * transmittance)
                            }
                            transmittance *= 1 - alpha
                            if transmittance < 1.0 / 1024 { transmittance = 0; break }
                        }
                        let coverage = 1 - transmittance
                        let index = row * region.width + col
                        if coverageOnly {
                            o.pointer[index] = coverage
                        } else {
                            let y = region.y + row
                            for c in 0..<3 {
                                o.pointer[index * 3 + c] = color[c] + imageBuffer[frameX: x, frameY: y, channel: c] * transmittance
                            }
                        }
                    }
                }
            }
        }
    }
}
