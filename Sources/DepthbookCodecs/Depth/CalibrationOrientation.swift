import DepthbookEngine

/// Turns camera calibration upright along with the planes.
///
/// Apple states intrinsics in the sensor's frame (`IntrinsicMatrixReferenceWidth/Height`), which is the
/// stored frame of a photo carrying an EXIF orientation. Depthbook's planes are upright, so the principal
/// point and distortion centre move with the same turn, and fx/fy swap on a quarter turn. A reference size
/// that already has the upright aspect (Apple's front-camera JPEGs, stored upright) is left alone.
/// Extrinsics and distortion tables are kept as stated: they describe the camera, not the raster.
enum CalibrationOrientation {
    static func upright(_ calibration: CameraCalibration, orientation: Orientation, uprightWidth: Int, uprightHeight: Int) -> CameraCalibration {
        guard orientation != .up else { return calibration }
        let refW = calibration.referenceWidth, refH = calibration.referenceHeight
        if orientation.swapsAxes {
            let refIsUpright = abs(refW * Double(uprightHeight) - refH * Double(uprightWidth)) < 0.01 * refW * Double(uprightHeight)
            if refIsUpright && refW != refH { return calibration }
        }
        let (uw, uh) = orientation.swapsAxes ? (refH, refW) : (refW, refH)
        func turn(_ x: Double, _ y: Double) -> (Double, Double) {
            let (nx, ny) = FaceRegionsXMP.turnUpright((x / refW, y / refH), orientation)
            return (nx * uw, ny * uh)
        }
        let (cx, cy) = turn(calibration.cx, calibration.cy)
        let (fx, fy) = orientation.swapsAxes ? (calibration.fy, calibration.fx) : (calibration.fx, calibration.fy)
        var out = calibration
        out.intrinsics = [fx, 0, cx, 0, fy, cy, 0, 0, 1]
        out.referenceWidth = uw
        out.referenceHeight = uh
        if let centre = calibration.lensDistortionCenter {
            let (x, y) = turn(centre.x, centre.y)
            out.lensDistortionCenter = (x, y)
        }
        return out
    }
}
