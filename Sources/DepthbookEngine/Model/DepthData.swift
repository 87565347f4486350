/// What the values of a depth plane mean.
public enum DepthKind: String, Sendable, Codable {
    /// Inverse distance, in 1/m (or unitless when accuracy is relative).
    case disparity
    /// Distance from the camera, in metres.
    case depth
}

/// Whether depth values are metric (absolute) or only ordered (relative).
public enum DepthAccuracy: String, Sendable, Codable {
    case relative
    case absolute
}

/// How the grey of a depth map that came as a picture of its own was read.
public struct GreyPolarity: Sendable, Equatable {
    /// true when brighter grey was taken as nearer (disparity-like), false when as farther (depth-like).
    public var brighterIsNearer: Bool
    /// true when the reader decided from the map and its image; false when the caller said which way.
    public var detected: Bool

    public init(brighterIsNearer: Bool, detected: Bool) {
        self.brighterIsNearer = brighterIsNearer
        self.detected = detected
    }
}

/// How a depth plane that no camera measured was made.
public enum DepthEstimate: String, Sendable, Codable {
    /// From the learned person matte (`EstimatedDisparity`): the subject in front, the ground and a soft falloff
    /// behind it.
    case personMatte

    /// What `inspect` and the page say of such depth.
    public var label: String {
        switch self {
        case .personMatte: return "estimated (from the person matte)"
        }
    }
}

/// A depth or disparity map aligned to the upright image, at its own resolution.
///
/// Holes (pixels with no measurement) are NaN, never 0 or "far".
public struct DepthData: Sendable, Equatable {
    public var kind: DepthKind
    public var map: FloatPlane
    public var accuracy: DepthAccuracy
    public var isFiltered: Bool
    /// "high" or "low" as the camera reported it, when known.
    public var quality: String?
    public var calibration: CameraCalibration?
    /// For a depth map read from a grey picture of its own: which way its grey ran. nil for depth a photo
    /// file describes itself (its metadata says what the values mean).
    public var greyPolarity: GreyPolarity? = nil
    /// Set when the photo was taken without depth and this plane was estimated from the picture: nothing here
    /// was measured, so it is never written back as depth, and effects that need measured depth refuse it.
    public var estimate: DepthEstimate? = nil

    public init(kind: DepthKind, map: FloatPlane, accuracy: DepthAccuracy, isFiltered: Bool,
                quality: String? = nil, calibration: CameraCalibration? = nil) {
        self.kind = kind
        self.map = map
        self.accuracy = accuracy
        self.isFiltered = isFiltered
        self.quality = quality
        self.calibration = calibration
    }

    /// Min and max over valid (non-NaN) pixels; nil when the map is all holes.
    public var range: ClosedRange<Float>? { map.validRange() }

    /// The same data as `kind`: disparity = 1 / depth, exactly, with holes (and zeros) becoming NaN.
    public func converted(to target: DepthKind) -> DepthData {
        if target == kind { return self }
        var copy = self
        copy.kind = target
        copy.map.samples = map.samples.map { v in (v.isNaN || v <= 0) ? .nan : 1 / v }
        return copy
    }
}
