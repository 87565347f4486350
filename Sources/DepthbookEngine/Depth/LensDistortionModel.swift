/// A radial lens distortion as Apple's calibration describes it: about a distortion centre, a point at
/// radius r moves to radius r·(1 + m(r)), where the magnification m is either
/// - a lookup table (AVCameraCalibrationData.lensDistortionLookupTable): n values spaced evenly from the
///   centre (index 0) to the farthest image corner (index n − 1), linearly interpolated, the last value
///   beyond it: exactly the reference function in AVCameraCalibrationData.h (lensDistortionPointForPoint); or
/// - polynomial coefficients c₀…c₇ (the `LensDistortionCoefficients` newer files carry): m(r) = Σ cᵢ·ρⁱ / 100
///   with ρ the radius in millimetres on the sensor (pixels × pixel size). Apple does not document these;
///   this reading (percent over millimetres) makes the forward and inverse sets of the real photos invert
///   each other to within half a pixel at 4032 px, which no other unit tried did better.
///
/// The forward description maps a rectilinear (undistorted) point to where the lens put it; the inverse
/// maps a distorted point back. All positions are in pixels of the calibration's reference size.
public struct LensDistortionModel: Sendable, Equatable {
    public enum Magnification: Sendable, Equatable {
        case table([Double])
        case polynomial([Double], millimetresPerPixel: Double)
    }

    public var center: (x: Double, y: Double)
    public var referenceSize: (width: Double, height: Double)
    public var forward: Magnification
    /// The inverse description when the file has one; otherwise the forward map is inverted numerically.
    public var inverse: Magnification?

    public init(center: (x: Double, y: Double), referenceSize: (width: Double, height: Double),
                forward: Magnification, inverse: Magnification?) {
        self.center = center
        self.referenceSize = referenceSize
        self.forward = forward
        self.inverse = inverse
    }

    /// The model the calibration carries (tables preferred over coefficients), or nil when it has none.
    public init?(_ c: CameraCalibration) {
        let centre = c.lensDistortionCenter ?? (c.cx, c.cy)
        let size = (c.referenceWidth, c.referenceHeight)
        if let t = c.lensDistortionLookupTable, t.count >= 2 {
            self.init(center: centre, referenceSize: size, forward: .table(t),
                      inverse: c.inverseLensDistortionLookupTable.flatMap { $0.count >= 2 ? .table($0) : nil })
        } else if let k = c.lensDistortionCoefficients, !k.isEmpty, let mm = c.pixelSize, mm > 0 {
            self.init(center: centre, referenceSize: size, forward: .polynomial(k, millimetresPerPixel: mm),
                      inverse: c.inverseLensDistortionCoefficients.flatMap { $0.isEmpty ? nil : .polynomial($0, millimetresPerPixel: mm) })
        } else {
            return nil
        }
    }

    public static func == (a: LensDistortionModel, b: LensDistortionModel) -> Bool {
        a.center == b.center && a.referenceSize == b.referenceSize && a.forward == b.forward && a.inverse == b.inverse
    }

    /// Distance from the centre to the farthest corner: where the table's last entry applies.
    public var maximumRadius: Double {
        let dx = max(center.x, referenceSize.width - center.x), dy = max(center.y, referenceSize.height - center.y)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The largest |m(r)| from the centre to the farthest corner: 0 when the description is all zeros (a lens
    /// described as perfect, which some files carry), so there is nothing to correct.
    public var largestMagnification: Double {
        let radius = maximumRadius
        return (0...64).map { abs(magnification(forward, radius: radius * Double($0) / 64)) }.max() ?? 0
    }

    /// Whether the description is all zeros: a lens described as perfect, with nothing to correct.
    public var describesNoDistortion: Bool { largestMagnification < 1e-9 }

    /// m(r) for a description at radius `r` (reference pixels).
    public func magnification(_ m: Magnification, radius r: Double) -> Double {
        switch m {
        case .table(let t):
            let rmax = maximumRadius
            guard rmax > 0 else { return 0 }
            let position = min(1, r / rmax) * Double(t.count - 1)
            let i = min(t.count - 2, Int(position.rounded(.down)))
            let f = position - Double(i)
            return t[i] + (t[i + 1] - t[i]) * f
        case .polynomial(let c, let mm):
            let rho = r * mm
            var value = 0.0, power = 1.0
            for coefficient in c {
                value += coefficient * power
                power *= rho
            }
            return value / 100
        }
    }

    /// Where the lens puts the rectilinear point `p` (the forward map), magnification scaled by `strength`.
    public func distorted(_ p: (x: Double, y: Double), strength: Double = 1) -> (x: Double, y: Double) {
        let dx = p.x - center.x, dy = p.y - center.y
        let s = 1 + strength * magnification(forward, radius: (dx * dx + dy * dy).squareRoot())
        return (center.x + dx * s, center.y + dy * s)
    }

    /// The rectilinear point the lens moved to `q` (the inverse map): from the inverse description when
    /// present (unless `inverting`), else by solving r·(1 + m(r)) = r_q with a few fixed-point steps, which
    /// undoes `distorted` exactly.
    public func undistorted(_ q: (x: Double, y: Double), strength: Double = 1, inverting: Bool = false) -> (x: Double, y: Double) {
        let dx = q.x - center.x, dy = q.y - center.y
        let rq = (dx * dx + dy * dy).squareRoot()
        if rq == 0 { return q }
        let s: Double
        if let inverse, !inverting {
            s = 1 + strength * magnification(inverse, radius: rq)
        } else {
            var r = rq
            for _ in 0..<60 {
                let next = rq / (1 + strength * magnification(forward, radius: r))
                if abs(next - r) < 1e-9 { r = next; break }
                r = next
            }
            s = r / rq
        }
        return (center.x + dx * s, center.y + dy * s)
    }
}
