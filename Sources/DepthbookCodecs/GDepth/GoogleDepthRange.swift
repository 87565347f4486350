import DepthbookEngine

/// Google's normalised depth encodings (GDepth and Dynamic Depth), decoded to disparity.
///
/// A stored value `d_n` in 0...1 means, with `near`/`far` in the file's units:
/// - RangeLinear: `depth = near + d_n (far − near)`
/// - RangeInverse: `depth = far·near / (far − d_n (far − near))`, i.e. disparity linear in `d_n`.
/// Depthbook keeps disparity (1 / depth), the quantity its effects threshold and blur with.
enum GoogleDepthRange {
    enum Format: String { case rangeLinear = "RangeLinear", rangeInverse = "RangeInverse" }

    static func parseFormat(_ text: String?) throws -> Format {
        guard let text else { return .rangeInverse }
        guard let f = Format(rawValue: text) else { throw PhotoError.badMetadata("unknown depth format \"\(text)\"") }
        return f
    }

    /// Checks near/far: both positive, far beyond near.
    static func validate(near: Double?, far: Double?) throws -> (Double, Double) {
        guard let near, let far else { throw PhotoError.badMetadata("the depth map has no Near/Far range") }
        guard near > 0, far > near else { throw PhotoError.badMetadata("the depth range Near \(near) / Far \(far) is not usable") }
        return (near, far)
    }

    /// Disparity (1 / depth) for normalised values.
    static func disparity(normalized: FloatPlane, format: Format, near: Double, far: Double) -> FloatPlane {
        let n = Float(near), f = Float(far)
        var out = normalized
        switch format {
        case .rangeLinear:
            for i in out.samples.indices { out.samples[i] = 1 / (n + normalized.samples[i] * (f - n)) }
        case .rangeInverse:
            let a = 1 / n, b = 1 / n - 1 / f
            for i in out.samples.indices { out.samples[i] = a - normalized.samples[i] * b }
        }
        return out
    }

    /// Decodes an embedded depth image (PNG or JPEG) to its first channel in 0...1.
    static func normalizedPlane(_ bytes: [UInt8], limits: DecodeLimits) throws -> FloatPlane {
        if PNGCodec.isPNG(bytes[...]) { return try PNGCodec.decode(bytes, limits: limits, what: "the depth map (PNG)").firstChannelUnit() }
        if bytes.starts(with: [0xFF, 0xD8]) {
            return try DepthPlanes.jpegUnitPlane(bytes, limits: limits, what: "the depth image")
        }
        throw PhotoError.badMetadata("the embedded depth image is neither PNG nor JPEG")
    }
}
