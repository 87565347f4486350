@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct SpatialFilterTests {
    func reference(_ op: String, _ raster: Raster<Float>, _ params: [String], extra: [[Float]] = []) throws -> [Float] {
        try PythonReference("spatial.py").run([raster.samples] + extra,
                                              arguments: [op, "\(raster.width)", "\(raster.height)", "\(raster.channels)"] + params)
    }

    func render(_ node: Node) throws -> [Float] {
        try Evaluator().render(node, RenderTarget(size: node.extent)).samples
    }

    @Test(arguments: [(23, 17, 3, 2), (9, 30, 1, 6), (1, 1, 1, 3)])
    func boxMatchesScipy(width: Int, height: Int, channels: Int, radius: Int) throws {
        let raster = EngineFixtures.noise(width: width, height: height, channels: channels)
        let ours = try render(EngineFixtures.source(raster).applying(BoxBlur(radius: Double(radius))))
        #expect(EngineFixtures.maxDifference(ours, try reference("box", raster, ["\(radius)"])) < 1e-5)
    }

    @Test(arguments: [(5, 0.0), (4, 90.0), (6, 33.0), (3, -150.0)])
    func motionMatchesScipy(radius: Int, angle: Double) throws {
        let raster = EngineFixtures.noise(width: 21, height: 15, channels: 3, seed: 8)
        let ours = try render(EngineFixtures.source(raster).applying(MotionBlur(radius: Double(radius), angle: angle)))
        #expect(EngineFixtures.maxDifference(ours, try reference("motion", raster, ["\(radius)", "\(angle)"])) < 1e-5)
    }

    @Test(arguments: [[1.0, 0, 0, 1, 3.5, -2], [0.8, 0.6, -0.6, 0.8, 4, 1], [2, 0, 0, 0.5, 0, 0], [-1, 0, 0, 1, 19, 0]])
    func affineMatchesScipy(m: [Double]) throws {
        let raster = EngineFixtures.noise(width: 19, height: 13, channels: 1, seed: 2)
        let node = try EngineFixtures.source(raster).applying(AffineTransform(a: m[0], b: m[1], c: m[2], d: m[3], tx: m[4], ty: m[5]))
        let ours = try render(node)
        #expect(EngineFixtures.maxDifference(ours, try reference("affine", raster, m.map { "\($0)" })) < 1e-5)
        // A region matches the whole frame.
        let rect = PixelRect(x: 4, y: 3, width: 9, height: 7)
        let part = try Evaluator().render(node, RenderTarget(size: node.extent, region: rect))
        let whole = try Evaluator().render(node, RenderTarget(size: node.extent))
        #expect(part.samples == whole.cropped(to: rect).samples)
        #expect(throws: RenderError.self) { try AffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 0, ty: 0) }
    }

    @Test(arguments: [(2, 1e-3), (4, 1e-2), (1, 1e-6)])
    func guidedFilterMatchesNumpy(radius: Int, epsilon: Double) throws {
        let plane = EngineFixtures.noise(width: 24, height: 18, channels: 1, seed: 6)
        let image = EngineFixtures.noise(width: 24, height: 18, channels: 3, seed: 7)
        let node = try Node(GuidedFilter(radius: Double(radius), epsilon: epsilon),
                            [EngineFixtures.source(plane, id: "p"), EngineFixtures.source(image, id: "i")])
        let ours = try render(node)
        #expect(EngineFixtures.maxDifference(ours, try reference("guided", plane, ["\(radius)", "\(epsilon)"], extra: [image.samples])) < 2e-3)
        let rect = PixelRect(x: 10, y: 5, width: 11, height: 9)
        let part = try Evaluator(context: RenderContext(threads: 3)).render(node, RenderTarget(size: node.extent, region: rect))
        let whole = try Evaluator().render(node, RenderTarget(size: node.extent))
        #expect(part.samples == whole.cropped(to: rect).samples)
    }

    /// Taller than a band (`GuidedFilter.bandRows`): computed band by band, it matches the reference whole.
    @Test func guidedFilterAcrossBandsMatchesNumpy() throws {
        let height = GuidedFilter.bandRows * 2 + 37
        let plane = EngineFixtures.noise(width: 9, height: height, channels: 1, seed: 16)
        let image = EngineFixtures.noise(width: 9, height: height, channels: 3, seed: 17)
        let node = try Node(GuidedFilter(radius: 5, epsilon: 1e-3),
                            [EngineFixtures.source(plane, id: "p"), EngineFixtures.source(image, id: "i")])
        let ours = try render(node)
        #expect(EngineFixtures.maxDifference(ours, try reference("guided", plane, ["5", "0.001"], extra: [image.samples])) < 2e-3)
        let rect = PixelRect(x: 2, y: GuidedFilter.bandRows - 20, width: 6, height: GuidedFilter.bandRows + 10)
        let part = try Evaluator().render(node, RenderTarget(size: node.extent, region: rect))
        let whole = try Evaluator().render(node, RenderTarget(size: node.extent))
        #expect(part.samples == whole.cropped(to: rect).samples)
    }

    /// The guided filter upsamples a blocky low-resolution mask so its edge follows the image's edge.
    @Test func guidedUpsamplingSnapsToImageEdges() throws {
        let w = 40, h = 10
        let image = Raster<Float>(width: w, height: h, channels: 3, samples: (0..<(w * h)).flatMap { i -> [Float] in
            let v: Float = i % w < 23 ? 0.1 : 0.9
            return [v, v, v]
        })
        let mask = Raster<Float>(width: 4, height: 1, channels: 1, samples: [0, 0, 1, 1])
        let node = try Node(GuidedFilter(radius: 4, epsilon: 1e-4), [EngineFixtures.source(mask, id: "m"), EngineFixtures.source(image, id: "i")])
        let out = try render(node)
        // Bilinear alone rises 0.1 per pixel here; guided, the rise concentrates at the image edge (x 22 → 23).
        #expect(out[5 * w + 23] - out[5 * w + 22] > 0.3)
        #expect(out[5 * w + 22] - out[5 * w + 21] < 0.1 && out[5 * w + 24] - out[5 * w + 23] < 0.1)
    }

    @Test func hexagonalCellsAreUniformAndCentred() throws {
        let raster = EngineFixtures.noise(width: 40, height: 30, channels: 3, seed: 12)
        let node = try EngineFixtures.source(raster).applying(HexagonalPixellate(scale: 8, centerX: 20.5, centerY: 15.5))
        let out = try render(node)
        // The pixel holding a cell centre keeps its own colour; its 4-neighbours share it.
        for (x, y) in [(20, 15), (28, 15), (24, 22)] {
            for c in 0..<3 {
                let v = raster[x, y, c]
                #expect(out[(y * 40 + x) * 3 + c] == v)
                #expect(out[(y * 40 + x + 1) * 3 + c] == v && out[((y + 1) * 40 + x) * 3 + c] == v)
            }
        }
        let distinct = Set(stride(from: 0, to: out.count, by: 3).map { out[$0] })
        #expect(distinct.count < 40)
    }

    @Test func cropKeepsTheRectangle() throws {
        let raster = EngineFixtures.noise(width: 12, height: 9, channels: 1)
        let node = try EngineFixtures.source(raster).applying(Crop(PixelRect(x: 3, y: 2, width: 5, height: 4)))
        #expect(node.extent == PixelSize(width: 5, height: 4))
        let out = try render(node)
        #expect(out == (2..<6).flatMap { y in (3..<8).map { x in raster[x, y, 0] } })
        #expect(throws: RenderError.self) { try EngineFixtures.source(raster).applying(Crop(PixelRect(x: 20, y: 0, width: 5, height: 4))) }
    }

    @Test func holeFillKeepsValidPixelsAndNeverMixesNaN() throws {
        var samples = EngineFixtures.noise(width: 17, height: 11, channels: 1, seed: 9).samples.map { $0 + 1 }
        for y in 3..<9 { for x in 2..<12 { samples[y * 17 + x] = .nan } }
        samples[0] = .nan
        let raster = Raster<Float>(width: 17, height: 11, channels: 1, samples: samples)
        let out = try render(EngineFixtures.source(raster, hasHoles: true).applying(HoleFill()))
        let valid = samples.filter { !$0.isNaN }
        for (before, after) in zip(samples, out) {
            #expect(!after.isNaN)
            if !before.isNaN { #expect(before == after) }
            #expect(after >= valid.min()! && after <= valid.max()!)
        }
        // A constant plane with holes fills with that constant; an all-hole plane stays holes.
        let constant = Raster<Float>(width: 5, height: 5, channels: 1, samples: (0..<25).map { $0 % 3 == 0 ? .nan : 2 })
        #expect(try render(EngineFixtures.source(constant, id: "c", hasHoles: true).applying(HoleFill())).allSatisfy { $0 == 2 })
        let empty = Raster<Float>(width: 3, height: 1, channels: 1, samples: [.nan, .nan, .nan])
        #expect(try render(EngineFixtures.source(empty, id: "e", hasHoles: true).applying(HoleFill())).allSatisfy(\.isNaN))
    }
}
