import DepthbookEngine

/// Face regions in XMP as the Metadata Working Group's region schema (`mwg-rs`) describes them.
///
/// A region's `stArea:x/y` is its centre and `w/h` its size, normalised to `AppliedToDimensions`.
/// Apple's front-camera JPEGs state those dimensions in sensor orientation (landscape) while the pixels are
/// stored upright (portrait): when the stated dimensions are the image's swapped, the regions are turned by
/// the quarter turn that takes the sensor to the upright image.
enum FaceRegionsXMP {
    /// How Apple's sensor-oriented regions turn upright: the front TrueDepth sensor reads the portrait
    /// picture rotated a quarter turn (checked against the portrait matte in the tests).
    static let sensorToUpright: Orientation = .right

    /// Regions in upright image pixels for an image `width` × `height` (upright) that was stored with
    /// `orientation`. Regions without a usable area are skipped; junk numbers throw `badMetadata`.
    static func read(_ xmp: XMPDocument, uprightWidth width: Int, uprightHeight height: Int, orientation: Orientation) throws -> [FaceRegion] {
        guard let regions = xmp.value(XMPNamespace.mwgRegions, "Regions") else { return [] }
        guard let list = regions.field(XMPNamespace.mwgRegions, "RegionList")?.items else { return [] }
        let applied = regions.field(XMPNamespace.mwgRegions, "AppliedToDimensions")
        let appliedW = applied?.field(XMPNamespace.stDim, "w")?.double
        let appliedH = applied?.field(XMPNamespace.stDim, "h")?.double

        // Which frame the normalised coordinates refer to, and how that frame turns upright.
        let (storedW, storedH) = orientation.swapsAxes ? (height, width) : (width, height)
        var turn: Orientation = .up
        if let aw = appliedW, let ah = appliedH, width != height {
            let matchesUpright = abs(aw * Double(height) - ah * Double(width)) < 0.01 * aw * Double(height)
            if !matchesUpright {
                // Compared as Doubles: the dimensions are the file's, and Int(1e300) would trap.
                if orientation != .up, aw.rounded() == Double(storedW), ah.rounded() == Double(storedH) {
                    turn = orientation
                } else if abs(aw * Double(width) - ah * Double(height)) < 0.01 * aw * Double(width) {
                    turn = sensorToUpright
                }
            }
        }

        var faces: [FaceRegion] = []
        for item in list {
            guard let area = item.field(XMPNamespace.mwgRegions, "Area") else { continue }
            let unit = area.field(XMPNamespace.stArea, "unit")?.text?.trimmingSpaces.lowercased() ?? "normalized"
            guard unit == "normalized" else { continue }
            let names = ["x", "y", "w", "h"]
            var v: [Double] = []
            for n in names {
                guard let field = area.field(XMPNamespace.stArea, n) else { break }
                guard let d = field.double else { throw PhotoError.badMetadata("face region \(n) is \"\(field.text ?? "")\", not a number") }
                v.append(d)
            }
            guard v.count == 4, v[2] > 0, v[3] > 0 else { continue }
            let type = item.field(XMPNamespace.mwgRegions, "Type")?.text?.trimmingSpaces ?? "Face"
            // Corners in the frame's normalised coordinates, turned into upright normalised coordinates.
            let corners = [(v[0] - v[2] / 2, v[1] - v[3] / 2), (v[0] + v[2] / 2, v[1] + v[3] / 2)].map { turnUpright($0, turn) }
            let x0 = min(corners[0].0, corners[1].0), x1 = max(corners[0].0, corners[1].0)
            let y0 = min(corners[0].1, corners[1].1), y1 = max(corners[0].1, corners[1].1)
            faces.append(FaceRegion(x: x0 * Double(width), y: y0 * Double(height),
                                    width: (x1 - x0) * Double(width), height: (y1 - y0) * Double(height), type: type))
        }
        return faces
    }

    /// A normalised point of a frame stored with orientation `o`, in the upright frame.
    static func turnUpright(_ p: (Double, Double), _ o: Orientation) -> (Double, Double) {
        let (x, y) = p
        switch o {
        case .up: return (x, y)
        case .upMirrored: return (1 - x, y)
        case .down: return (1 - x, 1 - y)
        case .downMirrored: return (x, 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (1 - y, x)
        case .rightMirrored: return (1 - y, 1 - x)
        case .left: return (y, 1 - x)
        }
    }
}
