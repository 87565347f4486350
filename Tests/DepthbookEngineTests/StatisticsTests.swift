import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct StatisticsTests {
    @Test(arguments: [1, 2, 7, 1000, 4097])
    func percentilesAndHistogramMatchNumpy(count: Int) throws {
        var samples = EngineFixtures.noise(width: count, height: 1, channels: 1, seed: UInt64(count)).samples
        for i in stride(from: 3, to: samples.count, by: 17) { samples[i] = .nan }
        if samples.allSatisfy(\.isNaN) { samples[0] = 0.5 }
        // Ties: repeat a value.
        if samples.count > 10 { samples[5] = samples[4]; samples[6] = samples[4] }
        let ps: [Double] = [0, 10, 50, 60, 99.9, 100]
        let bins = 16
        let reference = try PythonReference("stats.py").run([samples], arguments: ["\(bins)"] + ps.map { "\($0)" })
        for (i, p) in ps.enumerated() {
            let ours = try #require(Statistics.percentile(samples, p))
            #expect(abs(ours - Double(reference[i])) <= 1e-6 * max(1, abs(ours)), "p\(p)")
        }
        let histogram = Statistics.histogram(samples, bins: bins)
        #expect(histogram.counts == reference[ps.count..<(ps.count + bins)].map { Int($0) })
        #expect(histogram.holes == Int(reference[ps.count + bins]))
    }

    /// The bucketed selection against a sort, at every rank, on shapes that stress the buckets: clustered
    /// values and ties, a range spanning the whole float line, subnormals, signed zeros, infinities, one value.
    @Test(arguments: ["clustered", "wide", "subnormal", "zeros", "infinite", "constant", "noise"])
    func percentileIsTheSortedOrderStatistic(_ shape: String) throws {
        var rng = SplitMix64(seed: 7)
        let n = 3001
        let samples: [Float] = (0..<n).map { i in
            let u = Float(rng.next() >> 40) / Float(1 << 24)
            switch shape {
            case "clustered": return i % 3 == 0 ? 1.25 : 1 + Float(Int(u * 4)) / 1024
            case "wide": return (u - 0.5) * 2 * .greatestFiniteMagnitude
            case "subnormal": return Float(bitPattern: UInt32(u * 1000))
            case "zeros": return i % 2 == 0 ? -0.0 : (i % 5 == 0 ? 0 : u)
            case "infinite": return i % 7 == 0 ? .infinity : (i % 11 == 0 ? -.infinity : u)
            case "constant": return 0.75
            default: return i % 13 == 0 ? .nan : u
            }
        }
        let sorted = samples.filter { !$0.isNaN }.sorted()
        for k in stride(from: 0, to: sorted.count, by: 1) {
            let p = Double(k) / Double(sorted.count - 1) * 100
            // p chosen so the rank is exactly k: the result is that order statistic, no interpolation.
            let rank = p / 100 * Double(sorted.count - 1)
            guard rank == Double(k) else { continue }
            #expect(try #require(Statistics.percentile(samples, p)) == Double(sorted[k]), "\(shape) k=\(k)")
        }
        // Interpolated ranks: between the two neighbours, exactly as the formula from the sorted values.
        for p in [0.05, 37.3, 60, 99.99] {
            let rank = p / 100 * Double(sorted.count - 1), k = Int(rank.rounded(.down))
            let expected = Double(sorted[k]) + (rank - Double(k)) * (Double(sorted[min(k + 1, sorted.count - 1)]) - Double(sorted[k]))
            let ours = try #require(Statistics.percentile(samples, p))
            #expect(ours == expected || (ours.isNaN && expected.isNaN), "\(shape) p=\(p)")
        }
    }

    @Test func handValues() throws {
        let values: [Float] = [4, .nan, 1, 3, 2]
        #expect(Statistics.percentile(values, 50) == 2.5)
        #expect(Statistics.percentile(values, 0) == 1)
        #expect(Statistics.minMax(values) == 1...4)
        #expect(Statistics.mean(values) == 2.5)
        #expect(Statistics.percentile([.nan], 50) == nil)
        #expect(Statistics.histogram(values, bins: 3).counts == [1, 1, 2])
        #expect(Statistics.histogram([7, 7], bins: 3).counts == [0, 2, 0])
    }

    @Test func percentileThresholdKeepsTheTopFraction() throws {
        let raster = Raster<Float>(width: 10, height: 1, channels: 1, samples: (0..<10).map(Float.init))
        let node = try EngineFixtures.source(raster).applying(PercentileThreshold(percentile: 60))
        // rank 0.6 · 9 = 5.4 → cut 5.4: values 6...9 pass.
        let out = try Evaluator().render(node, RenderTarget(size: node.extent, region: PixelRect(x: 4, y: 0, width: 6, height: 1)))
        #expect(out.samples == [0, 0, 1, 1, 1, 1])
    }

    @Test func normalizeMapsToUnitRange() throws {
        let raster = Raster<Float>(width: 4, height: 1, channels: 1, samples: [2, .nan, 4, 3])
        let out = try Evaluator().render(EngineFixtures.source(raster, hasHoles: true).applying(Normalize()),
                                         RenderTarget(size: PixelSize(width: 4, height: 1)))
        #expect(out.samples[0] == 0 && out.samples[1].isNaN && out.samples[2] == 1 && out.samples[3] == 0.5)
    }
}
