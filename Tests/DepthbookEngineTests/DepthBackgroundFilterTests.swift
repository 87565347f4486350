import DepthbookEngine
import DepthbookTestSupport
import Testing

/// The background filters of the 2017 blend-mask demo that the engine lacked: hexagonal pixellate and
/// motion blur, against brute-force references.
struct DepthBackgroundFilterTests {
    let noise = EngineFixtures.noise(width: 30, height: 26, channels: 3, seed: 5)

    @Test func pixellateFillsEachHexagonWithItsCentreColour() throws {
        let s = 6.0
        let out = try DepthScenes.render(try EngineFixtures.source(noise).applying(HexagonalPixellate(scale: s))).samples
        // Brute force: every lattice centre near the frame, nearest one wins.
        let h = s * 3.0.squareRoot() / 2
        var centres: [(Double, Double)] = []
        for r in -2...12 { for c in -2...8 { centres.append((Double(c) * s + (r % 2 == 0 ? 0 : s / 2), Double(r) * h)) } }
        for y in 0..<26 { for x in 0..<30 {
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let best = centres.min { ($0.0 - px) * ($0.0 - px) + ($0.1 - py) * ($0.1 - py) < ($1.0 - px) * ($1.0 - px) + ($1.1 - py) * ($1.1 - py) }!
            let sx = min(29, max(0, Int(best.0.rounded(.down)))), sy = min(25, max(0, Int(best.1.rounded(.down))))
            for c in 0..<3 { #expect(out[(y * 30 + x) * 3 + c] == noise[sx, sy, c]) }
        } }
    }

    @Test func motionBlurAveragesAlongItsDirectionOnly() throws {
        // Rows of constant colour: a horizontal streak changes nothing; a vertical one mixes rows.
        let rows = DepthScenes.plane(width: 24, height: 20) { _, y in Float(y % 5) / 4 }
        let horizontal = try DepthScenes.render(try EngineFixtures.source(rows).applying(MotionBlur(radius: 6, angle: 0))).samples
        #expect(EngineFixtures.maxDifference(horizontal, rows.samples) < 1e-6)
        let vertical = try DepthScenes.render(try EngineFixtures.source(rows).applying(MotionBlur(radius: 6, angle: 90))).samples
        #expect(EngineFixtures.maxDifference(vertical, rows.samples) > 0.2)
        // Against a direct mean of 13 taps at integer offsets along x (exact for a horizontal streak).
        let plane = EngineFixtures.noise(width: 24, height: 20, channels: 1, seed: 8)
        let out = try DepthScenes.render(try EngineFixtures.source(plane).applying(MotionBlur(radius: 6, angle: 0))).samples
        for y in [0, 7, 19] { for x in [0, 5, 12, 23] {
            var sum: Float = 0
            for t in -6...6 { sum += plane[min(23, max(0, x + t)), y, 0] }
            #expect(abs(out[y * 24 + x] - sum / 13) < 1e-5)
        } }
        let still = try DepthScenes.render(try EngineFixtures.source(plane).applying(MotionBlur(radius: 0, angle: 30))).samples
        #expect(still == plane.samples)
    }
}
