import Foundation
/// A person-like subject: a head with a painted face (eyes, brows, lips, teeth, optional glasses), a hair
/// shell, ears, a neck and a torso, all solids the tracer intersects exactly.
///
/// The face features live in the head's own normalised coordinates (the hit point minus the head centre,
/// divided by the radii), so they stay put whatever the head's size or distance.
struct PersonModel: Sendable {
    var headCenter: Vec3
    /// Half-width, half-height and half-depth of the head, metres.
    var headRadii: Vec3
    var skinTone: Vec3
    var hairColor: Vec3
    var shirtColor: Vec3
    var shirtStripeColor: Vec3
    var lipColor: Vec3
    var irisColor: Vec3
    /// Glasses frame colour, or nil for a subject without glasses.
    var glassesFrame: Vec3?
    var lensTint: Vec3 = Vec3(0.35, 0.45, 0.55)
    /// Whether the mouth is open in a smile showing the upper teeth.
    var showsTeeth: Bool = true
    /// How far down the sides the hair falls, in the hair shell's normalised height (0 = ear level, 0.9 = jaw).
    var hairLength: Double = 0.3
    var seed: UInt64
    /// Fly-away hairs (see `withStrands`); none by default.
    var strands: [HairStrand] = []

    /// The same person with `count` fly-away hairs around the top of the head.
    func withStrands(_ count: Int) -> PersonModel {
        var copy = self
        copy.strands = HairStrand.around(center: hairCenter, radii: hairRadii, count: count, seed: seed)
        return copy
    }

    private var hairCenter: Vec3 { headCenter + Vec3(0, -0.012 * headRadii.y / 0.1, 0.012) }
    private var hairRadii: Vec3 { headRadii * Vec3(1.16, 1.12, 1.14) }
    private var neck: Shape {
        .cylinder(centerX: headCenter.x, centerZ: headCenter.z + 0.015, radius: headRadii.x * 0.62,
                  top: headCenter.y + headRadii.y * 0.5, bottom: headCenter.y + headRadii.y * 1.75)
    }
    /// Shoulders: a flat ellipsoid across the top of the chest, so the silhouette has a shoulder line.
    private var shoulders: Shape {
        .ellipsoid(center: headCenter + Vec3(0, headRadii.y * 1.45 + 0.125, 0.07), radii: Vec3(0.2, 0.11, 0.12))
    }
    private var chest: Shape {
        .ellipsoid(center: headCenter + Vec3(0, headRadii.y * 1.45 + 0.7, 0.08), radii: Vec3(0.19, 0.6, 0.13))
    }
    private func ear(_ side: Double) -> Shape {
        .ellipsoid(center: headCenter + Vec3(side * headRadii.x * 0.93, headRadii.y * 0.05, 0.005),
                   radii: Vec3(0.018, 0.032, 0.02))
    }

    /// The depth of the face's surface straight ahead of its centre: the ground-truth subject distance.
    var faceDepth: Double { headCenter.z - headRadii.z }

    /// The nearest surface of the person along `d`, with its colour before lighting.
    func trace(_ d: Vec3, light: Vec3) -> SurfaceSample? {
        var best: SurfaceSample?
        func consider(_ s: SurfaceSample) {
            if s.depth < (best?.depth ?? .infinity) { best = s }
        }
        if let h = Shape.ellipsoidHit(d, center: hairCenter, radii: hairRadii) {
            let l = (d * h.depth - hairCenter) / hairRadii
            if isHair(l) { consider(SurfaceSample(depth: h.depth, color: shade(hairTexture(l), h.normal, light), label: .hair, isDepthHole: false)) }
        }
        for strand in strands {
            if let t = strand.hit(d), t < (best?.depth ?? .infinity) {
                consider(SurfaceSample(depth: t, color: hairColor * 1.15, label: .hair, isDepthHole: false))
            }
        }
        if let h = Shape.ellipsoidHit(d, center: headCenter, radii: headRadii), h.depth < (best?.depth ?? .infinity) {
            let l = (d * h.depth - headCenter) / headRadii
            let (color, label) = face(l)
            consider(SurfaceSample(depth: h.depth, color: shade(color, h.normal, light), label: label, isDepthHole: false))
        }
        for side in [-1.0, 1.0] {
            if let h = ear(side).intersect(d), h.depth < (best?.depth ?? .infinity) {
                consider(SurfaceSample(depth: h.depth, color: shade(skinTone * 0.95, h.normal, light), label: .skin, isDepthHole: false))
            }
        }
        if let h = neck.intersect(d), h.depth < (best?.depth ?? .infinity) {
            consider(SurfaceSample(depth: h.depth, color: shade(skinTone * 0.9, h.normal, light), label: .skin, isDepthHole: false))
        }
        for part in [shoulders, chest] {
            if let h = part.intersect(d), h.depth < (best?.depth ?? .infinity) {
                let p = d * h.depth
                let stripe = (p.y * 40).rounded(.down).truncatingRemainder(dividingBy: 2) == 0
                consider(SurfaceSample(depth: h.depth, color: shade(stripe ? shirtColor : shirtStripeColor, h.normal, light),
                                       label: .clothes, isDepthHole: false))
            }
        }
        return best
    }

    /// Hair covers the top (down to a wavy fringe), the back, and the sides down to ear level.
    private func isHair(_ l: Vec3) -> Bool {
        let fringe: Double = -0.42 - 0.06 * cos(l.x * 3) + 0.035 * sin(l.x * 17)
        return l.y < fringe || l.z > 0.12 || (abs(l.x) > 0.8 && l.y < hairLength)
    }

    private func hairTexture(_ l: Vec3) -> Vec3 {
        let fine: Double = sin(l.x * 150 + l.y * 23)
        let coarse: Double = sin(l.x * 37 - l.y * 11)
        return hairColor * (0.82 + 0.3 * fine * coarse)
    }

    /// The painted face: what colour and label the head surface has at normalised position `l`.
    private func face(_ l: Vec3) -> (Vec3, SurfaceLabel) {
        guard l.z < -0.2 else { return (skinTone, .skin) }
        var color = skinTone * (0.97 + 0.06 * valueNoise(l.x * 40, l.y * 40, seed: seed))
        var label = SurfaceLabel.skin
        for side in [-1.0, 1.0] {
            let ex = l.x - side * 0.38, ey = l.y + 0.12
            // Brow: an arched band above the eye.
            let arch = -0.31 - 0.05 * (1 - (ex / 0.22) * (ex / 0.22))
            if abs(ex) < 0.22, abs(l.y - arch) < 0.028 { color = hairColor * 0.9; label = .brow }
            if (ex / 0.15) * (ex / 0.15) + (ey / 0.065) * (ey / 0.065) < 1 {
                let r2 = ex * ex + ey * ey
                color = r2 < 0.024 * 0.024 ? Vec3(0.04, 0.03, 0.03) : (r2 < 0.056 * 0.056 ? irisColor : Vec3(0.93, 0.92, 0.9))
                label = .eye
            }
        }
        // Mouth: lips around an opening; the upper half of the opening shows teeth when smiling.
        let mx = l.x / 0.3, my = (l.y - 0.5) / 0.12
        if mx * mx + my * my < 1 {
            let ix = l.x / 0.23, iy = (l.y - 0.5) / 0.06
            if showsTeeth, ix * ix + iy * iy < 1 {
                if l.y < 0.515 {
                    let gap = abs((l.x * 30).truncatingRemainder(dividingBy: 1)) < 0.08
                    color = gap ? Vec3(0.7, 0.66, 0.6) : Vec3(0.95, 0.93, 0.86)
                    label = .teeth
                } else {
                    color = Vec3(0.25, 0.06, 0.07)
                    label = .mouth
                }
            } else {
                color = lipColor
                label = .lips
            }
        }
        if let frame = glassesFrame, let glasses = glassesLayer(l, under: color, frame: frame) {
            return (glasses, .glasses)
        }
        return (color, label)
    }

    /// Frames (rims, bridge, temples) and tinted lenses over whatever lies beneath them.
    private func glassesLayer(_ l: Vec3, under: Vec3, frame: Vec3) -> Vec3? {
        if abs(l.x) < 0.13, abs(l.y + 0.16) < 0.025 { return frame }
        for side in [-1.0, 1.0] {
            let ex = l.x - side * 0.38, ey = l.y + 0.12
            let lens = (ex / 0.25) * (ex / 0.25) + (ey / 0.19) * (ey / 0.19)
            let rim = (ex / 0.29) * (ex / 0.29) + (ey / 0.23) * (ey / 0.23)
            if lens < 1 { return under * 0.7 + lensTint * 0.3 }
            if rim < 1 { return frame }
            if side * l.x > 0.66, abs(l.y + 0.15) < 0.022 { return frame }
        }
        return nil
    }
}

/// Lambert shading with an ambient floor, so solids read as round.
@inline(__always)
func shade(_ color: Vec3, _ normal: Vec3, _ light: Vec3) -> Vec3 {
    color * (0.42 + 0.62 * max(0, dot(normal, light)))
}
