import Foundation
/// How a prop's surface is coloured.
enum SurfacePattern: Sendable {
    /// The base colour with a little smooth noise (`amount` of it).
    case grain(amount: Double)
    /// Horizontal bands of the base and a second colour, `period` metres apart.
    case stripes(period: Double, other: Vec3)
    /// A checkerboard on the surface's x/z (floors) or x/y (walls) coordinates.
    case checker(period: Double, other: Vec3)
    /// Sky: the base colour at the horizon fading to `zenith` upwards.
    case sky(zenith: Vec3)
    /// Leaves: dark and light greens in blotches.
    case foliage
}

/// Where the simulated depth sensor returns nothing on a prop.
enum DepthHoleRule: Sendable {
    case none
    /// Where the mirror reflection of the view ray points close to the light (cosine above `threshold`).
    case specular(threshold: Double)
    /// Everywhere on the prop (a light-absorbing surface).
    case everywhere
}

/// A solid in the scene that is not the person.
struct SceneProp: Sendable {
    var name: String
    var shape: Shape
    var color: Vec3
    var pattern: SurfacePattern
    var label: SurfaceLabel = .scenery
    var holes: DepthHoleRule = .none
    /// Sky and distant walls are lit evenly: no Lambert term.
    var unlit: Bool = false

    func trace(_ d: Vec3, light: Vec3, seed: UInt64) -> SurfaceSample? {
        guard let hit = shape.intersect(d) else { return nil }
        let p = d * hit.depth
        let base = patterned(p, d)
        let lit = unlit ? base : shade(base, hit.normal, light)
        return SurfaceSample(depth: hit.depth, color: lit, label: label, isDepthHole: isHole(d, hit.normal, light))
    }

    private func patterned(_ p: Vec3, _ d: Vec3) -> Vec3 {
        switch pattern {
        case .grain(let amount):
            return color * (1 - amount + 2 * amount * valueNoise(p.x * 30, (p.y + p.z) * 30, seed: 7))
        case let .stripes(period, other):
            return Int((p.y / period).rounded(.down)) & 1 == 0 ? color : other
        case let .checker(period, other):
            let a = Int((p.x / period).rounded(.down)), b = Int(((abs(p.y) > 50 ? p.z : p.z + p.y) / period).rounded(.down))
            return (a + b) & 1 == 0 ? color : other
        case .sky(let zenith):
            let up = min(1, max(0, -d.y * 1.6 + 0.15))
            let cloud = max(0, valueNoise(d.x * 6, d.y * 14, seed: 11) - 0.55) * 1.6
            return color + (zenith - color) * up + Vec3(1, 1, 1) * cloud * 0.5
        case .foliage:
            let n = valueNoise(p.x * 9, p.y * 9 + p.z * 3, seed: 5) * 0.6 + valueNoise(p.x * 31, p.y * 31, seed: 6) * 0.4
            return color * (0.6 + 0.8 * n)
        }
    }

    private func isHole(_ d: Vec3, _ n: Vec3, _ light: Vec3) -> Bool {
        switch holes {
        case .none: return false
        case .everywhere: return true
        case .specular(let threshold):
            let v = normalize(d)
            let r = v - n * (2 * dot(v, n))
            return dot(r, light) > threshold
        }
    }
}
