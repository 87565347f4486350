import DepthbookEngine

/// Deterministic test images and comparison helpers for engine tests.
public enum EngineFixtures {
    /// A reproducible pseudo-random float raster in 0...1 (xorshift; no Foundation randomness).
    public static func noise(width: Int, height: Int, channels: Int, seed: UInt64 = 1) -> Raster<Float> {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var samples = [Float](repeating: 0, count: width * height * channels)
        for i in samples.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            samples[i] = Float(state >> 40) / Float(1 << 24)
        }
        return Raster(width: width, height: height, channels: channels, samples: samples)
    }

    /// A source node for `raster`.
    public static func source(_ raster: Raster<Float>, id: String = "fixture", hasHoles: Bool = false) throws -> Node {
        try Node(PlaneSource(raster, id: id, hasHoles: hasHoles))
    }

    /// Largest absolute difference (NaN in one but not the other counts as infinity).
    public static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return .infinity }
        var worst: Float = 0
        for (x, y) in zip(a, b) {
            if x.isNaN != y.isNaN { return .infinity }
            if x.isNaN { continue }
            worst = max(worst, abs(x - y))
        }
        return worst
    }

    /// A photo built from an RGB float raster (0...1) plus optional planes.
    public static func photo(width: Int, height: Int, seed: UInt64 = 1, disparity: Raster<Float>? = nil,
                             mattes: [Matte] = []) -> Photo {
        let rgb = noise(width: width, height: height, channels: 3, seed: seed)
        let bytes = rgb.samples.map { UInt8(min(255, max(0, ($0 * 255).rounded()))) }
        let depth = disparity.map { DepthData(kind: .disparity, map: $0, accuracy: .relative, isFiltered: true) }
        return Photo(image: Raster(width: width, height: height, channels: 3, samples: bytes), depth: depth, mattes: mattes)
    }
}
