/// EXIF orientation (1...8): how the stored pixels must be turned to show the picture upright.
public enum Orientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// Whether applying this orientation swaps width and height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The upright size of a stored `width` × `height` raster.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Maps an upright pixel position to the stored position it comes from.
    ///
    /// `w`, `h` are the stored raster's dimensions.
    @inlinable
    public func storedPosition(uprightX x: Int, uprightY y: Int, storedWidth w: Int, storedHeight h: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - 1 - x)
        case .rightMirrored: return (w - 1 - y, h - 1 - x)
        case .left: return (w - 1 - y, x)
        }
    }
}

extension Raster {
    /// The raster turned upright according to `orientation` (a copy; `.up` returns self).
    public func applying(_ orientation: Orientation) -> Raster {
        if orientation == .up || samples.isEmpty { return self }
        let (uw, uh) = orientation.uprightSize(width: width, height: height)
        var out = [Element](repeating: samples[0], count: samples.count)
        for y in 0..<uh {
            for x in 0..<uw {
                let (sx, sy) = orientation.storedPosition(uprightX: x, uprightY: y, storedWidth: width, storedHeight: height)
                let src = (sy * width + sx) * channels, dst = (y * uw + x) * channels
                for c in 0..<channels { out[dst + c] = samples[src + c] }
            }
        }
        return Raster(width: uw, height: uh, channels: channels, samples: out)
    }
}
