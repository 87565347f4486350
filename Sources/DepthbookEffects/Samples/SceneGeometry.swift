/// Ray–shape intersection for the synthetic sample scenes.
///
/// Camera space: the pinhole sits at the origin looking down +z, x to the right, y downwards (as image rows
/// go), metres. Every ray leaves the origin with direction `(x, y, 1)`, so the ray parameter `t` at a hit is
/// exactly the hit's depth z: the depth map is the ray parameter, with no conversion that could drift.
typealias Vec3 = SIMD3<Double>

/// Where a ray meets a surface: its depth and outward unit normal.
struct ShapeHit {
    var depth: Double
    var normal: Vec3
}

/// The solid shapes scenes are built from. Each is simple enough to intersect exactly.
enum Shape: Sendable {
    /// An axis-aligned ellipsoid.
    case ellipsoid(center: Vec3, radii: Vec3)
    /// An axis-aligned box.
    case box(min: Vec3, max: Vec3)
    /// A vertical cylinder (axis along y) between `top` and `bottom` (top < bottom: y points down), with a cap on top.
    case cylinder(centerX: Double, centerZ: Double, radius: Double, top: Double, bottom: Double)
    /// A horizontal floor at height `y` (below the camera: y > 0).
    case floor(y: Double)
    /// A wall facing the camera at depth `z`. Every ray hits it, so a scene ending in a wall has no gaps.
    case wall(z: Double)

    /// The smallest depth any point of the shape has (the ground truth a test can compare against).
    var nearestDepth: Double {
        switch self {
        case let .ellipsoid(c, r): return c.z - r.z
        case let .box(lo, _): return lo.z
        case let .cylinder(_, cz, radius, _, _): return cz - radius
        case .floor: return 0
        case let .wall(z): return z
        }
    }

    /// The nearest hit in front of the camera along direction `d` (with `d.z == 1`), if any.
    func intersect(_ d: Vec3) -> ShapeHit? {
        switch self {
        case let .ellipsoid(c, r):
            return Shape.ellipsoidHit(d, center: c, radii: r)
        case let .box(lo, hi):
            return Shape.boxHit(d, lo: lo, hi: hi)
        case let .cylinder(cx, cz, radius, top, bottom):
            return Shape.cylinderHit(d, cx: cx, cz: cz, radius: radius, top: top, bottom: bottom)
        case let .floor(y):
            guard d.y > 1e-9 else { return nil }
            return ShapeHit(depth: y / d.y, normal: Vec3(0, -1, 0))
        case let .wall(z):
            return ShapeHit(depth: z, normal: Vec3(0, 0, -1))
        }
    }

    /// Solves |(t·d − c) / r|² = 1 for the smaller positive t.
    static func ellipsoidHit(_ d: Vec3, center c: Vec3, radii r: Vec3) -> ShapeHit? {
        let o = -c / r, dd = d / r
        let a = (dd * dd).sum(), b = 2 * (o * dd).sum(), cc = (o * o).sum() - 1
        let disc = b * b - 4 * a * cc
        guard disc >= 0 else { return nil }
        let root = disc.squareRoot()
        var t = (-b - root) / (2 * a)
        if t <= 1e-6 { t = (-b + root) / (2 * a) }
        guard t > 1e-6 else { return nil }
        let p = d * t
        return ShapeHit(depth: t, normal: normalize((p - c) / (r * r)))
    }

    /// The slab method: the ray enters the box where it has entered all three slabs.
    static func boxHit(_ d: Vec3, lo: Vec3, hi: Vec3) -> ShapeHit? {
        var tNear = -Double.infinity, tFar = Double.infinity
        var axis = 2
        for i in 0..<3 {
            if abs(d[i]) < 1e-12 {
                if 0 < lo[i] || 0 > hi[i] { return nil }
                continue
            }
            var t0 = lo[i] / d[i], t1 = hi[i] / d[i]
            if t0 > t1 { swap(&t0, &t1) }
            if t0 > tNear { tNear = t0; axis = i }
            tFar = min(tFar, t1)
        }
        guard tNear <= tFar, tNear > 1e-6 else { return nil }
        var n = Vec3(0, 0, 0)
        n[axis] = d[axis] > 0 ? -1 : 1
        return ShapeHit(depth: tNear, normal: n)
    }

    /// The side of a vertical cylinder, or its top cap when the ray looks down onto it.
    static func cylinderHit(_ d: Vec3, cx: Double, cz: Double, radius: Double, top: Double, bottom: Double) -> ShapeHit? {
        var best: ShapeHit?
        // Side: (t·dx − cx)² + (t·dz − cz)² = r².
        let a = d.x * d.x + d.z * d.z
        let b = -2 * (d.x * cx + d.z * cz)
        let c = cx * cx + cz * cz - radius * radius
        let disc = b * b - 4 * a * c
        if disc >= 0 {
            let t = (-b - disc.squareRoot()) / (2 * a)
            let y = t * d.y
            if t > 1e-6, y >= top, y <= bottom {
                best = ShapeHit(depth: t, normal: normalize(Vec3(t * d.x - cx, 0, t * d.z - cz)))
            }
        }
        // Top cap, seen from above when the camera is higher than the top (top > 0 means below the eye line).
        if d.y > 1e-9, top > 0 {
            let t = top / d.y
            let px = t * d.x - cx, pz = t * d.z - cz
            if px * px + pz * pz <= radius * radius, t < (best?.depth ?? .infinity) {
                best = ShapeHit(depth: t, normal: Vec3(0, -1, 0))
            }
        }
        return best
    }
}

@inline(__always)
func normalize(_ v: Vec3) -> Vec3 {
    let l = (v * v).sum().squareRoot()
    return l > 0 ? v / l : v
}

@inline(__always)
func dot(_ a: Vec3, _ b: Vec3) -> Double { (a * b).sum() }

/// A deterministic hash of integer coordinates to 0..<1: the samples' texture "noise" with no random state.
@inline(__always)
func hashUnit(_ x: Int, _ y: Int, _ seed: UInt64) -> Double {
    var h = UInt64(bitPattern: Int64(x)) &* 0x9E37_79B9_7F4A_7C15
    h ^= UInt64(bitPattern: Int64(y)) &* 0xC2B2_AE3D_27D4_EB4F
    h ^= seed &* 0x1656_67B1_9E37_79F9
    h ^= h >> 31
    h = h &* 0xBF58_476D_1CE4_E5B9
    h ^= h >> 29
    return Double(h >> 11) / Double(UInt64(1) << 53)
}

/// Smooth value noise in 0...1 from the hash, for textures on surfaces (scale: lattice cells per metre).
func valueNoise(_ u: Double, _ v: Double, seed: UInt64) -> Double {
    let x0 = u.rounded(.down), y0 = v.rounded(.down)
    let fx = u - x0, fy = v - y0
    let sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy)
    let ix = Int(x0), iy = Int(y0)
    let a = hashUnit(ix, iy, seed), b = hashUnit(ix + 1, iy, seed)
    let c = hashUnit(ix, iy + 1, seed), e = hashUnit(ix + 1, iy + 1, seed)
    return (a + (b - a) * sx) + ((c + (e - c) * sx) - (a + (b - a) * sx)) * sy
}
