import DepthbookEngine
import DepthbookTestSupport
import Testing

import func Foundation.pow

/// Darken by disparity and the blend-mask ramp: exact against closed forms.
@Suite(.timeLimit(.minutes(30)))
struct DepthPointwiseTests {
    let image = EngineFixtures.noise(width: 23, height: 11, channels: 3, seed: 3)
    let disparity: Raster<Float> = {
        var d = EngineFixtures.noise(width: 23, height: 11, channels: 1, seed: 9)
        d.samples = d.samples.map { 0.4 + 2 * $0 }   // disparity in 0.4...2.4 1/m
        d.samples[5] = .nan
        return d
    }()

    @Test func darkenWithPowerZeroIsTheInput() throws {
        let node = try Node(DarkenByDisparity(power: 0, low: 0.4, high: 2.4),
                            [EngineFixtures.source(image, id: "i"), EngineFixtures.source(disparity, id: "d", hasHoles: true)])
        #expect(try DepthScenes.render(node).samples == image.samples)
    }

    @Test(arguments: [1.0, 2.5, 7.0])
    func darkenScalesByNormalisedDisparityToThePower(_ power: Double) throws {
        let node = try Node(DarkenByDisparity(power: power, low: 0.4, high: 2.4),
                            [EngineFixtures.source(image, id: "i"), EngineFixtures.source(disparity, id: "d", hasHoles: true)])
        let out = try DepthScenes.render(node).samples
        for p in 0..<disparity.pixelCount {
            let d = Double(disparity.samples[p])
            let n = d.isNaN ? 0 : min(1, max(0, (d - 0.4) / 2.0))
            let k = pow(n, power)
            for c in 0..<3 {
                #expect(abs(Double(out[p * 3 + c]) - Double(image.samples[p * 3 + c]) * k) < 1e-5)
            }
        }
    }

    @Test func rampIsOneAboveThresholdZeroBelowAndLinearBetween() throws {
        let values: [Float] = [0, 0.29, 0.3, 0.35, 0.4, 0.5, 1, .nan]
        let plane = Raster(width: values.count, height: 1, channels: 1, samples: values)
        let node = try EngineFixtures.source(plane, hasHoles: true).applying(DisparityRamp(threshold: 0.4, width: 0.1))
        let out = try DepthScenes.render(node).samples
        let expected: [Float] = [0, 0, 0, 0.5, 1, 1, 1, 0]
        #expect(EngineFixtures.maxDifference(out, expected) < 1e-5)
        let ramp = try DisparityRamp(threshold: 0.4, width: 0.1)
        #expect(abs(ramp.slopeAndBias.slope - 10) < 1e-4 && abs(ramp.slopeAndBias.bias + 3) < 1e-4)
    }

    @Test func hardRampIsAThreshold() throws {
        let plane = Raster<Float>(width: 4, height: 1, channels: 1, samples: [0.1, 0.5, 0.6, 0.9])
        let node = try EngineFixtures.source(plane).applying(DisparityRamp(threshold: 0.6, width: 0))
        #expect(try DepthScenes.render(node).samples == [0, 0, 1, 1])
    }

    @Test func areaMinMaxMatchesABruteForceScanWithClampedEdges() throws {
        let plane = EngineFixtures.noise(width: 17, height: 13, channels: 1, seed: 4)
        let buffer = PixelBuffer(region: PixelRect(x: 0, y: 0, width: 17, height: 13), channels: 1, samples: plane.samples)
        for (x, y) in [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (0.93, 0.1)] {
            let range = try #require(AreaMinMax.around(buffer, x: x, y: y, radius: 2))
            let cx = min(16, Int(x * 17)), cy = min(12, Int(y * 13))
            var lo = Float.infinity, hi = -Float.infinity
            for yy in max(0, cy - 2)...min(12, cy + 2) { for xx in max(0, cx - 2)...min(16, cx + 2) {
                lo = min(lo, plane[xx, yy, 0]); hi = max(hi, plane[xx, yy, 0])
            } }
            #expect(range == lo...hi)
        }
        let holes = PixelBuffer(region: PixelRect(x: 0, y: 0, width: 3, height: 3), channels: 1, repeating: .nan)
        #expect(AreaMinMax.around(holes, x: 0.5, y: 0.5, radius: 1) == nil)
    }
}
