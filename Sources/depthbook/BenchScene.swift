import DepthbookCodecs
import DepthbookEngine
import Foundation

/// The benchmark inputs, as `../shared/peers/common.py` defines them.
struct BenchInputs {
    var rgb: RGBImage8
    /// Disparity at W/4 × H/4 (synthetic) or the photo's own map (real).
    var disparity: FloatPlane
    /// Portrait matte and skin matte at W/2 × H/2, 0...1.
    var matte: FloatPlane
    var skin: FloatPlane

    var width: Int { rgb.width }
    var height: Int { rgb.height }
}

/// A port of `common.synthetic`: smooth colour gradients, a nearer central ellipse "subject", noise.
///
/// The maths and constants are the peers'; only the noise stream differs (a SplitMix64 + Box-Muller normal
/// generator instead of numpy's PCG64 ziggurat), with the same standard deviations.
enum BenchScene {
    static func synthetic(width W: Int, height H: Int, seed: UInt64 = 1234) -> BenchInputs {
        var rng = NormalNoise(seed: seed)
        func field(_ w: Int, _ h: Int, _ x: Int, _ y: Int) -> (Float, Float) {
            (Float(x) / Float(max(w - 1, 1)), Float(y) / Float(max(h - 1, 1)))
        }
        func ellipse(_ u: Float, _ v: Float) -> Float {
            let a = (u - 0.5) / 0.22, b = (v - 0.55) / 0.32
            return a * a + b * b
        }
        var rgb = [UInt8](repeating: 0, count: W * H * 3)
        for y in 0..<H {
            for x in 0..<W {
                let (u, v) = field(W, H, x, y)
                let subj: Float = ellipse(u, v) < 1 ? 1 : 0
                let r = 0.25 + 0.5 * u + 0.2 * subj
                let g = 0.3 + 0.4 * v + 0.1 * sin(6.28 * u) - 0.1 * subj
                let b = 0.6 - 0.3 * u * v + 0.15 * subj
                for (c, value) in [r, g, b].enumerated() {
                    let noisy = value * 255 + Float(rng.next() * 6)
                    rgb[(y * W + x) * 3 + c] = UInt8(min(255, max(0, noisy + 0.5)).rounded(.towardZero))
                }
            }
        }
        let dw = W / 4, dh = H / 4
        var disp = [Float](repeating: 0, count: dw * dh)
        for y in 0..<dh {
            for x in 0..<dw {
                let (u, v) = field(dw, dh, x, y)
                disp[y * dw + x] = 0.2 + 0.3 * v + (ellipse(u, v) < 1 ? 0.8 : 0) + Float(rng.next() * 0.05)
            }
        }
        let mw = W / 2, mh = H / 2
        var matte = [Float](repeating: 0, count: mw * mh), skin = matte
        for y in 0..<mh {
            for x in 0..<mw {
                let (u, v) = field(mw, mh, x, y)
                let e = ellipse(u, v)
                matte[y * mw + x] = min(1, max(0, (1.15 - e) / 0.3))
                skin[y * mw + x] = min(1, max(0, (0.8 - e) / 0.4))
            }
        }
        return BenchInputs(rgb: Raster(width: W, height: H, channels: 3, samples: rgb),
                           disparity: Raster(width: dw, height: dh, channels: 1, samples: disp),
                           matte: Raster(width: mw, height: mh, channels: 1, samples: matte),
                           skin: Raster(width: mw, height: mh, channels: 1, samples: skin))
    }

    /// The real photo as the peers use it: its image, its disparity map, and (the file has no portrait
    /// matte) a soft ramp of the disparity between its 40th and 80th percentiles, resized bilinearly to
    /// W/2 × H/2, as both mattes. Built untimed.
    static func real(_ photo: Photo) throws -> BenchInputs {
        guard let depth = photo.depth else { throw RenderError.missingPlane("depth data") }
        let disparity = depth.converted(to: .disparity).map
        let lo = Statistics.percentile(disparity.samples, 40) ?? 0
        let hi = Statistics.percentile(disparity.samples, 80) ?? 1
        let span = max(hi - lo, 1e-6)
        let soft = disparity.samples.map { v -> Float in v.isNaN ? 0 : Float(min(1, max(0, (Double(v) - lo) / span))) }
        let softNode = try Node(PlaneSource(Raster(width: disparity.width, height: disparity.height, channels: 1, samples: soft), id: "soft"))
        let half = PixelSize(width: photo.width / 2, height: photo.height / 2)
        let matte = try Evaluator().render(softNode.applying(Resample(to: half)), RenderTarget(size: half)).raster
        return BenchInputs(rgb: photo.image, disparity: disparity, matte: matte, skin: matte)
    }
}

/// Standard normal samples: SplitMix64 uniforms through Box-Muller (deterministic, seedable).
struct NormalNoise {
    private var state: UInt64
    private var spare: Double?

    init(seed: UInt64) {
        state = seed
    }

    private mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 11) + 0.5) / Double(1 << 53)
    }

    mutating func next() -> Double {
        if let s = spare {
            spare = nil
            return s
        }
        let r = (-2 * log(uniform())).squareRoot(), t = 2 * Double.pi * uniform()
        spare = r * sin(t)
        return r * cos(t)
    }
}
