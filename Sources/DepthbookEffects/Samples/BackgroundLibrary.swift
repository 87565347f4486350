import DepthbookEngine
import Foundation

/// Backgrounds Backdrop can put behind a subject, generated (never shipped as files) at any size.
///
/// Like the talk's Backdrop app: a mountain valley, something abstract, and space. Each is painted from
/// normalised coordinates at the size rendered, so a 12 MP export is as sharp as a preview: edges are
/// anti-aliased over one output pixel, stars are discs of a fixed fraction of the frame.
enum BackgroundLibrary {
    static let all: [(id: String, title: String)] = [
        ("mountains", "Mountain valley"),
        ("abstract", "Abstract waves"),
        ("space", "Deep space"),
    ]

    /// Colour (sRGB, 0...1) at (u, v) in 0...1 of a frame whose pixels are `pixel` high in v.
    typealias Painter = @Sendable (_ u: Double, _ v: Double, _ pixel: Double) -> Vec3

    /// The painter of a background for frames of `aspect` (width / height), nil for an unknown id.
    static func painter(id: String, aspect: Double) -> Painter? {
        switch id {
        case "mountains": return { u, v, pixel in mountains(u * aspect, v, pixel) }
        case "abstract": return { u, v, _ in abstract(u, v) }
        case "space": return { u, v, pixel in space(u * aspect, v, pixel) }
        default: return nil
        }
    }

    /// How much of a pixel centred at `v` (`pixel` high) lies below an edge at `edge`: a one-pixel ramp.
    private static func below(_ v: Double, _ edge: Double, _ pixel: Double) -> Double {
        max(0, min(1, (v - edge) / pixel + 0.5))
    }

    /// Sky, three ridges of mountains hazier with distance (the far one capped with snow), a green valley floor.
    /// `x` runs over the width in units of the height, so peaks and textures keep their shape in any frame.
    private static func mountains(_ x: Double, _ v: Double, _ pixel: Double) -> Vec3 {
        var color = Vec3(0.55, 0.72, 0.92) + (Vec3(0.85, 0.9, 0.95) - Vec3(0.55, 0.72, 0.92)) * v
        let ridges: [(base: Double, height: Double, freq: Double, seed: UInt64, tone: Vec3, snow: Bool)] = [
            (0.5, 0.22, 3, 21, Vec3(0.6, 0.65, 0.75), true),
            (0.62, 0.2, 5, 22, Vec3(0.4, 0.47, 0.55), false),
            (0.75, 0.15, 8, 23, Vec3(0.25, 0.38, 0.3), false),
        ]
        for r in ridges {
            // Ridged noise for peaks, finer octaves for the crest's detail.
            let peaks = 1 - abs(2 * valueNoise(x * r.freq, 0.5, seed: r.seed) - 1)
            let top = r.base - r.height * (0.6 * peaks + 0.28 * valueNoise(x * r.freq * 3, 1.5, seed: r.seed)
                                           + 0.12 * valueNoise(x * r.freq * 11, 2.5, seed: r.seed))
            let cover = below(v, top, pixel)
            if cover == 0 { continue }
            // Lit near the crest, darker down the slope, with rock texture at a few scales.
            let slope = 1.08 - 0.25 * min(1, (v - top) / 0.2)
            var rock = r.tone * (slope * (0.86 + 0.28 * turbulence(x * 14, v * 14, seed: r.seed)))
            if r.snow {
                // Snow above a wavering snow line, so only the high peaks have caps.
                let snowLine = 0.35 + 0.05 * valueNoise(x * 7, 3.5, seed: 25)
                rock = mix(Vec3(0.95, 0.96, 0.98), rock, below(v, max(top, snowLine), pixel))
            }
            color = mix(color, rock, cover)
        }
        let grass = Vec3(0.28, 0.5, 0.22) * (0.82 + 0.36 * turbulence(x * 20, v * 20, seed: 24))
        return mix(color, grass, below(v, 0.85, pixel))
    }

    /// Overlapping soft colour waves.
    private static func abstract(_ u: Double, _ v: Double) -> Vec3 {
        let a = 0.5 + 0.5 * sin(u * 7 + 3 * sin(v * 4))
        let b = 0.5 + 0.5 * sin(v * 9 - 2 * cos(u * 5))
        let c = 0.5 + 0.5 * sin((u + v) * 5)
        return Vec3(0.25 + 0.6 * a * b, 0.2 + 0.5 * c * (1 - a), 0.45 + 0.45 * b * c)
    }

    /// Cells of the star field, as a fraction of the frame's height: about one star in 25 cells.
    private static let starCell = 1.0 / 260

    /// Near-black with a purple and blue nebula and stars: at most one per cell, a disc of up to a tenth of a
    /// cell, drawn at least ~0.7 px wide (dimmer when smaller), so the sky looks the same at every size.
    /// `x` runs over the frame's width in units of its height, so stars and clouds stay round.
    private static func space(_ x: Double, _ v: Double, _ pixel: Double) -> Vec3 {
        let cloud = smoothstep(0.42, 0.78, turbulence(x * 2.2, v * 2.2, seed: 31))
        let veil = smoothstep(0.35, 0.9, turbulence(x * 3.1 + 7, v * 3.1 + 3, seed: 41))
        let sky = Vec3(0.015, 0.015, 0.04) + Vec3(0.42, 0.14, 0.5) * (0.75 * cloud) + Vec3(0.08, 0.16, 0.42) * (0.45 * veil * (1 - cloud))
        let cx = Int((x / starCell).rounded(.down)), cy = Int((v / starCell).rounded(.down))
        guard hashUnit(cx, cy, 33) > 0.96 else { return sky }
        let sx = (Double(cx) + 0.25 + 0.5 * hashUnit(cx, cy, 34)) * starCell
        let sy = (Double(cy) + 0.25 + 0.5 * hashUnit(cx, cy, 35)) * starCell
        let radius = starCell * (0.04 + 0.06 * hashUnit(cx, cy, 36))
        let drawn = max(radius, 0.7 * pixel)
        let d2 = ((x - sx) * (x - sx) + (v - sy) * (v - sy)) / (drawn * drawn)
        let light = (1.2 + 0.8 * hashUnit(cx, cy, 37)) * (radius / drawn) * exp(-2 * d2)
        return mix(sky, Vec3(1, 1, 0.95), min(1, light))
    }

    /// Five octaves of value noise, each turned against the last so no lattice lines show, in 0...1.
    private static func turbulence(_ x: Double, _ y: Double, seed: UInt64) -> Double {
        var sum = 0.0, amplitude = 0.5, total = 0.0, (px, py) = (x, y)
        for octave in 0..<5 {
            sum += amplitude * valueNoise(px, py, seed: seed &+ UInt64(octave))
            total += amplitude
            (px, py) = (2.03 * (0.8 * px - 0.6 * py) + 1.7, 2.03 * (0.6 * px + 0.8 * py) + 9.2)
            amplitude *= 0.5
        }
        return sum / total
    }

    private static func smoothstep(_ a: Double, _ b: Double, _ x: Double) -> Double {
        let t = max(0, min(1, (x - a) / (b - a)))
        return t * t * (3 - 2 * t)
    }

    private static func mix(_ a: Vec3, _ b: Vec3, _ t: Double) -> Vec3 { a + (b - a) * t }
}
