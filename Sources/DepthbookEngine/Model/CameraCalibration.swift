/// Camera calibration carried with depth (Apple's AVCameraCalibrationData, as stored in XMP).
public struct CameraCalibration: Sendable, Equatable {
    /// Row-major 3×3 intrinsic matrix [fx 0 cx; 0 fy cy; 0 0 1] in pixels of the reference size.
    public var intrinsics: [Double]
    public var referenceWidth: Double
    public var referenceHeight: Double
    /// Row-major 4×3 (3 rows × 4 columns) extrinsic matrix [R | t], when present.
    public var extrinsics: [Double]?
    /// Pixel size in millimetres.
    public var pixelSize: Double?
    /// Lens distortion centre in pixels of the reference size.
    public var lensDistortionCenter: (x: Double, y: Double)?
    /// Magnification lookup table: relative distortion at radii spaced evenly from centre to farthest corner.
    public var lensDistortionLookupTable: [Double]?
    public var inverseLensDistortionLookupTable: [Double]?
    /// Polynomial coefficients that newer files carry instead of (or beside) the tables.
    public var lensDistortionCoefficients: [Double]?
    public var inverseLensDistortionCoefficients: [Double]?

    public init(intrinsics: [Double], referenceWidth: Double, referenceHeight: Double) {
        precondition(intrinsics.count == 9, "intrinsics are a 3×3 matrix")
        self.intrinsics = intrinsics
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
    }

    public var fx: Double { intrinsics[0] }
    public var fy: Double { intrinsics[4] }
    public var cx: Double { intrinsics[2] }
    public var cy: Double { intrinsics[5] }

    /// Whether any lens distortion description is present.
    public var hasLensDistortion: Bool {
        lensDistortionLookupTable != nil || lensDistortionCoefficients != nil
    }

    /// Intrinsics rescaled to a plane of `width` × `height` covering the same field of view.
    public func intrinsics(forWidth width: Int, height: Int) -> (fx: Double, fy: Double, cx: Double, cy: Double) {
        let sx = Double(width) / referenceWidth, sy = Double(height) / referenceHeight
        return (fx * sx, fy * sy, cx * sx, cy * sy)
    }

    public static func == (a: CameraCalibration, b: CameraCalibration) -> Bool {
        a.intrinsics == b.intrinsics && a.referenceWidth == b.referenceWidth && a.referenceHeight == b.referenceHeight
            && a.extrinsics == b.extrinsics && a.pixelSize == b.pixelSize
            && a.lensDistortionCenter?.x == b.lensDistortionCenter?.x && a.lensDistortionCenter?.y == b.lensDistortionCenter?.y
            && a.lensDistortionLookupTable == b.lensDistortionLookupTable
            && a.inverseLensDistortionLookupTable == b.inverseLensDistortionLookupTable
            && a.lensDistortionCoefficients == b.lensDistortionCoefficients
            && a.inverseLensDistortionCoefficients == b.inverseLensDistortionCoefficients
    }
}
