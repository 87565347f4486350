/// Lens distortion correction and its inverse, applied to an image or a plane.
///
/// `correct`: make the picture rectilinear. Each output (undistorted) pixel reads the input where the lens
/// put it, through the forward description (AVCameraCalibrationData's lookup table, as the header's
/// reference code rectifies). `distort`: put the lens's geometry back. Each output (distorted) pixel reads
/// the rectilinear input at the undistorted point, through the inverse description. Bilinear sampling; a
/// pixel that reads from beyond the input's frame is black (0), as the dolly zoom shows what the photo never
/// saw, instead of a streak of clamped edge pixels. `strength` scales the magnification (1 = the calibration;
/// 0 = no warp, the input back).
public struct LensWarp: Filter {
    public enum Direction: String, Sendable, CaseIterable {
        case correct
        case distort
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

    public init(model: LensDistortionModel, direction: Direction, strength: Double = 1) throws {
        try Self.info.validate("strength", strength)
        guard model.referenceSize.width > 0, model.referenceSize.height > 0 else {
            throw RenderError.badParameter(filter: Self.info.name, name: "model", message: "reference size must be positive")
        }
        self.model = model
        self.direction = direction
        self.strength = strength
    }

    public var parameterKey: String {
        "\(direction.rawValue),s=\(strength),c=\(model.center.x),\(model.center.y),ref=\(model.referenceSize.width)x\(model.referenceSize.height),"
            + "f=\(model.forward),i=\(String(describing: model.inverse))"
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        return inputs[0]
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size)]
    }

    /// Where output pixel centre (fx, fy) of a `size` frame reads from, in the same frame's coordinates.
    public func sourcePosition(_ fx: Double, _ fy: Double, size: PixelSize) -> (x: Double, y: Double) {
        let kx = model.referenceSize.width / Double(size.width), ky = model.referenceSize.height / Double(size.height)
        let p = (x: fx * kx, y: fy * ky)
        let q = direction == .correct ? model.distorted(p, strength: strength) : model.undistorted(p, strength: strength)
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
                        if s.x < 0 || s.y < 0 || s.x > Double(size.width) || s.y > Double(size.height) {
                            at.update(repeating: 0, count: ch)
                        } else {
                            input.sampleBilinear(Float(s.x), Float(s.y), into: at)
                        }
                    }
                }
            }
        }
    }
}
