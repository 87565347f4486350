import DepthbookEngine
import Foundation
import Synchronization

/// Backgrounds Backdrop can put behind a subject, generated (never shipped as files) at any size.
///
/// Like the talk's Backdrop app: a mountain valley, something abstract, and space.
enum BackgroundLibrary {
    static let all: [(id: String, title: String)] = [
        ("mountains", "Mountain valley"),
        ("abstract", "Abstract waves"),
        ("space", "Deep space"),
    ]

    static func render(id: String, width: Int, height: Int) -> RGBImage8? {
        guard width > 0, height > 0 else { return nil }
        let paint: @Sendable (Double, Double) -> Vec3
        switch id {
        case "mountains": paint = mountains
        case "abstract": paint = abstract
        case "space": paint = space(width: width, height: height)
        default: return nil
        }
        let out = SharedBuffer<UInt8>(count: width * height * 3, value: 0)
        parallelFor(count: height) { y in
            for x in 0..<width {
                let c = paint((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height))
                for k in 0..<3 { out[(y * width + x) * 3 + k] = UInt8(max(0, min(255, (c[k] * 255).rounded()))) }
            }
        }
        return RGBImage8(width: width, height: height, channels: 3, samples: out.array())
    }

    /// Sky, three ridges of mountains fading with distance, a green valley floor.
    private static func mountains(_ u: Double, _ v: Double) -> Vec3 {
        var color = Vec3(0.55, 0.72, 0.92) + (Vec3(0.85, 0.9, 0.95) - Vec3(0.55, 0.72, 0.92)) * v
        let ridges: [(base: Double, height: Double, freq: Double, seed: UInt64, tone: Vec3)] = [
            (0.5, 0.22, 4, 21, Vec3(0.6, 0.65, 0.75)),
            (0.62, 0.2, 7, 22, Vec3(0.4, 0.47, 0.55)),
            (0.75, 0.15, 11, 23, Vec3(0.25, 0.38, 0.3)),
        ]
        for r in ridges {
            let top = r.base - r.height * (0.6 * valueNoise(u * r.freq, 0.5, seed: r.seed) + 0.4 * valueNoise(u * r.freq * 3, 1.5, seed: r.seed))
            if v > top {
                let snow = r.seed == 21 && v < top + 0.03
                color = snow ? Vec3(0.95, 0.96, 0.98) : r.tone * (0.9 + 0.2 * valueNoise(u * 60, v * 60, seed: r.seed))
            }
        }
        if v > 0.85 { color = Vec3(0.28, 0.5, 0.22) * (0.85 + 0.3 * valueNoise(u * 80, v * 80, seed: 24)) }
        return color
    }

    /// Overlapping soft colour waves.
    private static func abstract(_ u: Double, _ v: Double) -> Vec3 {
        let a = 0.5 + 0.5 * sin(u * 7 + 3 * sin(v * 4))
        let b = 0.5 + 0.5 * sin(v * 9 - 2 * cos(u * 5))
        let c = 0.5 + 0.5 * sin((u + v) * 5)
        return Vec3(0.25 + 0.6 * a * b, 0.2 + 0.5 * c * (1 - a), 0.45 + 0.45 * b * c)
    }

    /// Near-black with hashed stars and a faint purple nebula.
    private static func space(width: Int, height: Int) -> @Sendable (Double, Double) -> Vec3 {
        { u, v in
            let nebula = max(0, valueNoise(u * 5, v * 5, seed: 31) * valueNoise(u * 11, v * 11, seed: 32) - 0.15)
            var color = Vec3(0.02, 0.02, 0.05) + Vec3(0.5, 0.2, 0.6) * nebula
            let sx = Int(u * Double(width)), sy = Int(v * Double(height))
            if hashUnit(sx, sy, 33) > 0.9985 { color = Vec3(1, 1, 0.95) }
            return color
        }
    }
}

/// Backgrounds already made at a photo's size (bundled ones generated, uploaded ones decoded and resized), so
/// Backdrop makes each one once, not per render.
final class BackgroundCache: Sendable {
    static let shared = BackgroundCache()
    /// Most bytes of backgrounds kept (every photo and session shares them).
    static let byteLimit = 80 << 20
    private let images = Mutex([String: RGBImage8]())

    func image(id: String, width: Int, height: Int) throws -> RGBImage8 {
        try image(key: "\(id):\(width)x\(height)") { try SampleLibrary.background(id: id, width: width, height: height) }
    }

    /// The image under `key`, made by `make` on a miss (outside the lock: making one may take a while).
    func image(key: String, make: () throws -> RGBImage8) throws -> RGBImage8 {
        if let hit = images.withLock({ $0[key] }) { return hit }
        let image = try make()
        images.withLock { all in
            // Made at a photo's size, each is up to 36 MB at 12 MP: a few, bounded in bytes, not a count.
            if all.values.reduce(image.samples.count, { $0 + $1.samples.count }) > Self.byteLimit { all.removeAll() }
            all[key] = image
        }
        return image
    }
}
