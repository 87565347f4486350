import Foundation

/// Fly-away hairs around the top of the head: thin curved strands a ray hits when it passes within the
/// strand's radius. They give the portrait and hair mattes the fine, partial-coverage detail a real matte
/// shows at the hairline (what the 2018 demo zooms into).
struct HairStrand: Sendable {
    /// Points along the strand (a sampled quadratic curve), metres, camera space.
    let points: [Vec3]
    /// The strand's extent in ray-direction coordinates (x/z, y/z), grown by its radius: a quick reject.
    let minU: Double, maxU: Double, minV: Double, maxV: Double
    let radius: Double

    /// `count` strands rooted on the rim of the hair shell's upper half, pointing outwards with a curl.
    static func around(center: Vec3, radii: Vec3, count: Int, seed: UInt64) -> [HairStrand] {
        (0..<count).map { i in
            let r = { (k: Int) in hashUnit(i, k, seed) }
            let angle = -Double.pi * (0.12 + 0.76 * (Double(i) + r(0)) / Double(count))
            let out = Vec3(cos(angle), sin(angle), 0)
            let along = Vec3(-sin(angle), cos(angle), 0)
            let root = center + Vec3(radii.x * cos(angle), radii.y * sin(angle), (r(1) - 0.5) * radii.z * 0.6) * 0.96
            let length = 0.008 + 0.02 * r(2)
            let curl = (r(3) - 0.5) * 0.035
            let control = root + out * (length * 0.55) + along * (curl * 0.5)
            let tip = root + out * length + along * curl + Vec3(0, 0.004 * r(4), 0)
            let points = (0...4).map { k -> Vec3 in
                let t = Double(k) / 4
                return root * ((1 - t) * (1 - t)) + control * (2 * t * (1 - t)) + tip * (t * t)
            }
            return HairStrand(points: points, radius: 0.00022 + 0.00018 * r(5))
        }
    }

    init(points: [Vec3], radius: Double) {
        self.points = points
        self.radius = radius
        let us = points.map { $0.x / $0.z }, vs = points.map { $0.y / $0.z }
        let margin = 2 * radius / (points.map(\.z).min() ?? 1)
        minU = (us.min() ?? 0) - margin
        maxU = (us.max() ?? 0) + margin
        minV = (vs.min() ?? 0) - margin
        maxV = (vs.max() ?? 0) + margin
    }

    /// The depth where the ray `d` (with d.z = 1) passes within `radius` of the strand, if it does.
    func hit(_ d: Vec3) -> Double? {
        guard d.x >= minU, d.x <= maxU, d.y >= minV, d.y <= maxV else { return nil }
        var best: Double?
        for k in 0..<(points.count - 1) {
            let a = points[k], b = points[k + 1]
            // Closest approach between the ray t·d and the segment a + s·(b − a).
            let e = b - a
            let dd = dot(d, d), de = dot(d, e), ee = dot(e, e), da = dot(d, a), ea = dot(e, a)
            let denominator = dd * ee - de * de
            guard denominator > 1e-18 else { continue }
            let s = min(1, max(0, (de * da - dd * ea) / denominator))
            let p = a + e * s
            let t = dot(d, p) / dd
            let gap = d * t - p
            if t > 0, dot(gap, gap) < radius * radius, t < (best ?? .infinity) { best = t }
        }
        return best
    }
}
