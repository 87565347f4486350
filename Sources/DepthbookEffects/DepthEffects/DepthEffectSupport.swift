import DepthbookEngine

/// What the depth effects share: the disparity's range for normalising, taps on the plane, the photo's
/// camera, and the planes the 3-D effects need.
enum DepthSupport {
    /// Min and max of the valid samples of a plane rendered at its native size.
    static func range(_ node: Node, _ c: EffectContext, effect: String) throws -> ClosedRange<Float> {
        let buffer = try c.native(node)
        var lo = Float.infinity, hi = -Float.infinity
        for v in buffer.samples where !v.isNaN {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        guard lo <= hi else { throw EffectError.badInput(effect: effect, message: "the depth plane has no valid pixel") }
        return lo...hi
    }

    /// The input as a disparity plane: disparity as given, or the photo's disparity when the input is the depth.
    static func disparity(_ built: BuiltNode, _ c: EffectContext, effect: String) throws -> Node {
        switch built.role {
        case .depth(.disparity): return built.node
        case .depth(.depth): return try Primitives.photo(c, .disparity)
        default: throw EffectError.badInput(effect: effect, message: "input must be the photo's disparity (or depth)")
        }
    }

    /// Refuses estimated depth (`DepthData.estimate`) for an effect that turns depth into geometry: a person cut
    /// out in front of a guessed ground would show as a flat card, and the effect would claim a shape nobody measured.
    static func requireMeasured(_ c: EffectContext) throws {
        if c.photo.depth?.estimate != nil { throw EffectError.missingPlane("measured depth") }
    }

    /// The input as a depth plane (distance): depth as given, or the photo's depth when the input is disparity.
    static func depth(_ built: BuiltNode, _ c: EffectContext, effect: String) throws -> Node {
        switch built.role {
        case .depth(.depth): return built.node
        case .depth(.disparity): return try Primitives.photo(c, .depth)
        default: throw EffectError.badInput(effect: effect, message: "input must be the photo's depth (or disparity)")
        }
    }

    /// The median of the valid samples within `radius` (fraction of the plane's width) of a normalised point.
    /// A point or radius from a file (a face region) may be anywhere, even NaN: the point is clamped into the
    /// plane and the radius to 1 px ... the plane's width, so no range below is ever empty and no conversion traps.
    static func median(_ buffer: PixelBuffer, at point: (x: Double, y: Double), radius: Double) -> Double? {
        let w = buffer.width, h = buffer.height
        guard w > 0, h > 0, point.x.isFinite, point.y.isFinite else { return nil }
        let cx = Int(min(max(point.x, 0), 1) * Double(w - 1)), cy = Int(min(max(point.y, 0), 1) * Double(h - 1))
        let r = radius.isFinite ? max(1, Int(min(max(radius, 0), 1) * Double(w))) : 1
        var values = [Float]()
        for y in max(0, cy - r)...min(h - 1, cy + r) {
            for x in max(0, cx - r)...min(w - 1, cx + r) {
                let v = buffer.samples[y * w + x]
                if !v.isNaN { values.append(v) }
            }
        }
        return Statistics.percentile(values, 50)
    }

    /// The camera of the photo in full-resolution image pixels: its calibration, or a 60° guess.
    static func intrinsics(_ c: EffectContext) -> PinholeIntrinsics {
        let size = PixelSize(width: c.photo.width, height: c.photo.height)
        if let calibration = c.photo.calibration { return PinholeIntrinsics(calibration, size: size) }
        return .assumed(size: size)
    }

    /// The photo's face regions as normalised rectangles (at most four, as CIDepthBlurEffect takes).
    static func faces(_ c: EffectContext) -> [(x: Double, y: Double, width: Double, height: Double)] {
        let w = Double(max(1, c.photo.width)), h = Double(max(1, c.photo.height))
        return c.photo.faces.filter { $0.type.lowercased() == "face" }.prefix(4).map { f in
            (f.x / w, f.y / h, f.width / w, f.height / h)
        }
    }
}
