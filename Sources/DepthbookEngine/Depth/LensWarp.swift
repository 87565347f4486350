/// Lens distortion correction and its inverse, applied to an image or a plane.
///
/// `correct`: make the picture rectilinear. Each output (undistorted) pixel reads the input where the lens
/// put it, through the forward description (AVCameraCalibrationData's lookup table, as the header's
/// reference code rectifies). `distort`: put the lens's geometry back, the exact inverse of `correct` (the
/// forward map inverted numerically, not the file's inverse description, which misses it by up to half a
/// pixel), so that correcting and distorting back returns the picture. Bilinear sampling. `strength` scales
/// the magnification (1 = the calibration; 0 = no warp, the input back).
///
/// What the corrected picture shows beyond the photo's frame is the `border`'s choice: `crop` enlarges it
/// about the distortion centre just enough that every pixel reads inside the photo (the largest view without
/// a border; `distort` undoes the same enlargement), `edge` repeats the nearest edge pixel, `black` leaves
/// it black (the talk's look).
public struct LensWarp: OneInputFilter {
    public enum Direction: String, Sendable, CaseIterable {
        case correct
        case distort
    }

    public enum Border: String, Sendable, CaseIterable {
        case crop
        case edge
        case black
    }

    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "lensWarp", coreImageName: nil,
        summary: "Rectify with the calibration's lens distortion, or re-apply it (the inverse warp).",
        parameters: [
            ParameterInfo("strength", range: 0...50,
                          doc: "Multiplies the calibrated magnification (exaggerate to see it; 0 = no warp)."),
        ])

    public let model: LensDistortionModel
    public let direction: Direction
    public let strength: Double
    public let border: Border
    /// The enlargement `crop` applies after correcting (1 for the other borders).
    public let zoom: Double

    public init(model: LensDistortionModel, direction: Direction, strength: Double = 1, border: Border = .black) throws {
        try Self.info.validate("strength", strength)
        guard model.referenceSize.width > 0, model.referenceSize.height > 0 else {
            throw RenderError.badParameter(filter: Self.info.name, name: "model", message: "reference size must be positive")
        }
        self.model = model
        self.direction = direction
        self.strength = strength
        self.border = border
        zoom = border == .crop ? Self.zoomToFill(model, strength: strength) : 1
    }

    /// The smallest enlargement ≥ 1 about the distortion centre after which every point of the corrected
    /// frame's edge reads inside the photo (the radial map keeps the interior inside when the edge is).
    static func zoomToFill(_ model: LensDistortionModel, strength: Double) -> Double {
        let (w, h) = model.referenceSize
        let edge: [(Double, Double)] = (0...64).flatMap { i -> [(Double, Double)] in
            let t = Double(i) / 64
            return [(t * w, 0), (t * w, h), (0, t * h), (w, t * h)]
        }
        func inside(_ zoom: Double) -> Bool {
            edge.allSatisfy { p in
                let q = model.distorted((model.center.x + (p.0 - model.center.x) / zoom, model.center.y + (p.1 - model.center.y) / zoom),
                                        strength: strength)
                return q.x >= -1e-9 && q.y >= -1e-9 && q.x <= w + 1e-9 && q.y <= h + 1e-9
            }
        }
        if inside(1) { return 1 }
        var low = 1.0, high = 8.0
        guard inside(high) else { return high }
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if inside(middle) { high = middle } else { low = middle }
        }
        return high
    }

    public var parameterKey: String {
        "\(direction.rawValue),s=\(strength),b=\(border.rawValue),c=\(model.center.x),\(model.center.y),ref=\(model.referenceSize.width)x\(model.referenceSize.height),"
            + "f=\(model.forward),i=\(String(describing: model.inverse))"
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size)]
    }

    /// Where output pixel centre (fx, fy) of a `size` frame reads from, in the same frame's coordinates.
    public func sourcePosition(_ fx: Double, _ fy: Double, size: PixelSize) -> (x: Double, y: Double) {
        let kx = model.referenceSize.width / Double(size.width), ky = model.referenceSize.height / Double(size.height)
        let p = (x: fx * kx, y: fy * ky), c = model.center
        let q: (x: Double, y: Double)
        switch direction {
        case .correct:
            q = model.distorted((c.x + (p.x - c.x) / zoom, c.y + (p.y - c.y) / zoom), strength: strength)
        case .distort:
            let u = model.undistorted(p, strength: strength, inverting: true)
            q = (c.x + (u.x - c.x) * zoom, c.y + (u.y - c.y) * zoom)
        }
        return (q.x / kx, q.y / ky)
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, size = request.target.size
        let ch = input.channels
        if strength == 0 { return input.cropped(to: region) }
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                for row in rows {
                    for col in 0..<region.width {
                        let s = sourcePosition(Double(region.x + col) + 0.5, Double(region.y + row) + 0.5, size: size)
                        let at = o.pointer + (row * region.width + col) * ch
                        let outside = s.x < 0 || s.y < 0 || s.x > Double(size.width) || s.y > Double(size.height)
                        if outside && border == .black {
                            at.update(repeating: 0, count: ch)
                        } else {
                            // (Crop's last sliver outside, a rounding's width, and edge: the nearest edge pixel.)
                            let x = min(max(s.x, 0), Double(size.width)), y = min(max(s.y, 0), Double(size.height))
                            input.sampleBilinear(Float(x), Float(y), into: at)
                        }
                    }
                }
            }
        }
    }
}
