import DepthbookEngine
import DepthbookTestSupport
import Synchronization
import Testing

/// The recipe graph itself: regions, tiling and threads, caching, cancellation.
@Suite(.timeLimit(.minutes(30)))
struct EvaluatorTests {
    /// A recipe mixing every kind of stage: a resampled, blurred, thresholded mask blending two images.
    func recipe() throws -> Node {
        let image = try EngineFixtures.source(EngineFixtures.noise(width: 61, height: 47, channels: 3, seed: 5), id: "img")
        let depth = try EngineFixtures.source(EngineFixtures.noise(width: 16, height: 12, channels: 1, seed: 9), id: "d")
        let mask = try depth.applying(GaussianBlur(sigma: 1.5)).applying(Threshold(0.5))
            .applying(Resample(to: image.extent, method: .bicubic)).applying(GaussianBlur(sigma: 2))
        let dark = try image.applying(ColorMatrix(matrix: [0.3, 0, 0, 0, 0, 0.3, 0, 0, 0, 0, 0.3, 0]))
        let blurred = try image.applying(GaussianBlur(sigma: 3))
        return try Node(BlendWithMask(), [blurred, dark, mask])
    }

    @Test(arguments: [1, 2, 3, 7])
    func outputIsTheSameWhateverTheThreads(threads: Int) throws {
        let node = try recipe()
        let reference = try Evaluator(context: RenderContext(threads: 1)).render(node, RenderTarget(size: node.extent))
        let other = try Evaluator(context: RenderContext(threads: threads)).render(node, RenderTarget(size: node.extent))
        #expect(other.samples == reference.samples)
    }

    @Test(arguments: [(8, 8), (17, 5), (61, 1), (1, 47)])
    func tilesStitchToTheWholeFrame(tileW: Int, tileH: Int) throws {
        let node = try recipe()
        let size = node.extent
        let whole = try Evaluator().render(node, RenderTarget(size: size))
        var stitched = [Float](repeating: -1, count: whole.samples.count)
        for ty in stride(from: 0, to: size.height, by: tileH) {
            for tx in stride(from: 0, to: size.width, by: tileW) {
                let tile = try Evaluator().render(node, RenderTarget(size: size, region: PixelRect(x: tx, y: ty, width: tileW, height: tileH)))
                for y in 0..<tile.height {
                    for x in 0..<tile.width {
                        for c in 0..<3 {
                            stitched[((ty + y) * size.width + tx + x) * 3 + c] = tile.samples[(y * tile.width + x) * 3 + c]
                        }
                    }
                }
            }
        }
        #expect(stitched == whole.samples)
    }

    @Test func bytesMatchQuantisedFloats() throws {
        let node = try recipe()
        let target = RenderTarget(size: node.extent, region: PixelRect(x: 3, y: 4, width: 30, height: 20))
        let floats = try Evaluator().render(node, target).samples
        let bytes = try Evaluator().renderBytes(node, target)
        #expect(bytes.width == 30 && bytes.height == 20 && bytes.channels == 3)
        #expect(bytes.samples == floats.map { UInt8((min(max($0, 0), 1) * 255 + 0.5).rounded(.towardZero)) })
    }

    /// A resample feeding a fused chain is computed row by row; its values equal the materialised plane's.
    @Test(arguments: [ResamplingMethod.bilinear, .bicubic, .lanczos])
    func fusedResamplingEqualsTheMaterialisedPlane(method: ResamplingMethod) throws {
        let fg = try EngineFixtures.source(EngineFixtures.noise(width: 45, height: 33, channels: 3, seed: 1), id: "fg")
        let bg = try EngineFixtures.source(EngineFixtures.noise(width: 45, height: 33, channels: 3, seed: 2), id: "bg")
        let small = try EngineFixtures.source(EngineFixtures.noise(width: 12, height: 9, channels: 1, seed: 3), id: "m")
        let alpha = try small.applying(Resample(to: fg.extent, method: method))
        let node = try Node(BlendWithMask(), [fg, bg, alpha])
        let target = RenderTarget(size: fg.extent, region: PixelRect(x: 5, y: 7, width: 31, height: 20))
        let fused = try Evaluator(context: RenderContext(threads: 2)).render(node, target)
        let a = try Evaluator().render(alpha, target).samples
        let f = try Evaluator().render(fg, target).samples, b = try Evaluator().render(bg, target).samples
        var expected = [Float](repeating: 0, count: f.count)
        for i in 0..<a.count {
            for c in 0..<3 {
                let j = i * 3 + c
                let fv: Float = f[j], bv: Float = b[j]
                expected[j] = bv + (fv - bv) * a[i]
            }
        }
        #expect(fused.samples == expected)
    }

    @Test func secondRenderComesFromTheCache() throws {
        let cache = RenderCache(byteLimit: 64 << 20)
        let node = try recipe()
        let first = RenderContext(cache: cache)
        _ = try Evaluator(context: first).render(node, RenderTarget(size: node.extent))
        #expect(first.cacheMisses > 0)
        let second = RenderContext(cache: cache)
        _ = try Evaluator(context: second).render(node, RenderTarget(size: node.extent))
        #expect(second.cacheHits == 1 && second.cacheMisses == 0)
    }

    /// Moving the last slider recomputes only the last stage: everything under it is a cache hit.
    @Test func changingOneParameterReusesItsInputs() throws {
        let cache = RenderCache(byteLimit: 64 << 20)
        let base = try EngineFixtures.source(EngineFixtures.noise(width: 40, height: 30, channels: 1), id: "p")
            .applying(GaussianBlur(sigma: 2))
        let warm = RenderContext(cache: cache)
        _ = try Evaluator(context: warm).render(base.applying(Threshold(0.4)), RenderTarget(size: base.extent))
        let moved = RenderContext(cache: cache)
        let out = try Evaluator(context: moved).render(base.applying(Threshold(0.6)), RenderTarget(size: base.extent))
        #expect(moved.cacheHits == 1 && moved.cacheMisses == 1)
        let fresh = try Evaluator().render(base.applying(Threshold(0.6)), RenderTarget(size: base.extent))
        #expect(out.samples == fresh.samples)
    }

    /// While a slider moves a blend's mask, the blend's unchanged pointwise side (exposure of a colour matrix
    /// of the image) is computed inside the fused chain the first time, kept the second, and read from the
    /// cache from then on; every frame equals an uncached render of the same recipe.
    @Test func aPointwiseSideAskedForAgainIsKept() throws {
        let cache = RenderCache(byteLimit: 64 << 20)
        let image = try EngineFixtures.source(EngineFixtures.noise(width: 37, height: 29, channels: 3, seed: 4), id: "img")
        let depth = try EngineFixtures.source(EngineFixtures.noise(width: 37, height: 29, channels: 1, seed: 6), id: "d")
        let side = try image.applying(ColorMatrix(matrix: [0.5, 0.2, 0, 0, 0, 0.7, 0, 0, 0.1, 0, 0.4, 0.05]))
            .applying(Exposure(ev: -1.5))
        let target = RenderTarget(size: image.extent)
        var keptAfter: [Bool] = []
        for (frame, cut) in [0.3, 0.4, 0.5, 0.6].enumerated() {
            let node = try Node(BlendWithMask(), [image, side, try depth.applying(Threshold(cut))])
            let out = try Evaluator(context: RenderContext(cache: cache)).renderBytes(node, target)
            #expect(out.samples == (try Evaluator().renderBytes(node, target)).samples, "frame \(frame)")
            keptAfter.append(cache.lookup(side.key, target) != nil)
            // Only the side's top stage is kept, not the colour matrix under it.
            #expect(cache.lookup(side.inputs[0].key, target) == nil)
        }
        #expect(keptAfter == [false, true, true, true])
    }

    @Test func cacheStaysUnderItsByteLimit() throws {
        let cache = RenderCache(byteLimit: 10_000)
        for seed in 0..<6 {
            let node = try EngineFixtures.source(EngineFixtures.noise(width: 30, height: 30, channels: 1, seed: UInt64(seed)),
                                                 id: "n\(seed)").applying(GaussianBlur(sigma: 1))
            _ = try Evaluator(context: RenderContext(cache: cache)).render(node, RenderTarget(size: node.extent))
            #expect(cache.bytes <= 10_000)
        }
        #expect(cache.bytes > 0)
    }

    /// A preview of a large source reads the reduced copy from the cache on the next frame.
    @Test func previewsReuseTheReducedSource() throws {
        let cache = RenderCache(byteLimit: 64 << 20)
        let photo = EngineFixtures.photo(width: 200, height: 150)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: "p"))
        let preview = PixelSize(width: 50, height: 38)
        _ = try Evaluator(context: RenderContext(cache: cache)).render(image.applying(GaussianBlur(sigma: 4)), RenderTarget(size: preview))
        let next = RenderContext(cache: cache)
        _ = try Evaluator(context: next).render(image.applying(GaussianBlur(sigma: 8)), RenderTarget(size: preview))
        #expect(next.cacheHits == 1 && next.cacheMisses == 1)
    }

    @Test func regionOfAPhotoAtFullSizeReadsOnlyThatRegion() throws {
        let photo = EngineFixtures.photo(width: 64, height: 48)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: "p"))
        let region = PixelRect(x: 10, y: 20, width: 5, height: 3)
        let out = try Evaluator().render(image, RenderTarget(size: image.extent, region: region))
        #expect(out.region == region)
        #expect(out[frameX: 12, frameY: 21, channel: 1] == Float(photo.image[12, 21, 1]) / 255)
    }

    @Test func cancellationStopsAtAStageBoundary() throws {
        let calls = Atomic<Int>(0)
        let context = RenderContext(isCancelled: { calls.add(1, ordering: .relaxed).newValue > 2 })
        let node = try recipe()
        #expect(throws: RenderError.cancelled) { try Evaluator(context: context).render(node, RenderTarget(size: node.extent)) }
    }

    /// A pass over many rows asks between chunks whether to go on: once cancelled, each band stops after the
    /// chunk it is in (a 64-stage formula over 12 MP is one pass, and ran on for minutes after its page left).
    @Test func aCancelledPassStopsBetweenChunksOfRows() {
        let cancelled = Atomic<Bool>(false)
        let context = RenderContext(threads: 2, isCancelled: { cancelled.load(ordering: .relaxed) })
        let rowsRun = Atomic<Int>(0)
        let rows = 4096, samplesPerRow = 4096
        context.parallelRows(rows, samplesPerRow: samplesPerRow) { range in
            rowsRun.add(range.count, ordering: .relaxed)
            cancelled.store(true, ordering: .relaxed)
        }
        // 8 bands of 512 rows, chunks of 2^20 / 4096 = 256 rows: at most one chunk per band after the flag.
        #expect(rowsRun.load(ordering: .relaxed) <= 8 * 256)
        let whole = Atomic<Int>(0)
        RenderContext(threads: 2).parallelRows(rows, samplesPerRow: samplesPerRow) { whole.add($0.count, ordering: .relaxed) }
        #expect(whole.load(ordering: .relaxed) == rows)
    }

    /// A stage cancelled part-way throws and leaves nothing in the cache (its rows are partly unwritten).
    @Test func aStageCancelledPartWayIsNeitherReturnedNorKept() throws {
        let image = try EngineFixtures.source(EngineFixtures.noise(width: 2048, height: 1024, channels: 3, seed: 3), id: "big")
        let node = try image.applying(ColorMatrix(matrix: [0.3, 0, 0, 0, 0, 0.3, 0, 0, 0, 0, 0.3, 0]))
        let target = RenderTarget(size: node.extent)
        let calls = Atomic<Int>(0)
        let cache = RenderCache(byteLimit: 1 << 30)
        let context = RenderContext(threads: 2, cache: cache, isCancelled: { calls.add(1, ordering: .relaxed).newValue > 3 })
        #expect(throws: RenderError.cancelled) { try Evaluator(context: context).render(node, target) }
        #expect(cache.lookup(node.key, target) == nil)
        _ = try Evaluator(context: RenderContext(threads: 2, cache: cache)).render(node, target)
        #expect(cache.lookup(node.key, target) != nil, "an uncancelled render is kept")
    }

    @Test func missingPlanesAreTypedErrors() throws {
        let photo = EngineFixtures.photo(width: 4, height: 4)
        #expect(throws: RenderError.missingPlane("depth data")) { try PhotoSource(photo: photo, plane: .disparity, photoID: "x") }
        #expect(throws: RenderError.self) { try Evaluator().render(Node(PhotoSource(photo: photo, plane: .image, photoID: "x")),
                                                                   RenderTarget(size: PixelSize(width: 0, height: 3))) }
    }

    @Test func keysAreStableAndDistinguishParameters() throws {
        let a = try EngineFixtures.source(EngineFixtures.noise(width: 4, height: 4, channels: 1)).applying(GaussianBlur(sigma: 1))
        let b = try EngineFixtures.source(EngineFixtures.noise(width: 4, height: 4, channels: 1)).applying(GaussianBlur(sigma: 1))
        let c = try EngineFixtures.source(EngineFixtures.noise(width: 4, height: 4, channels: 1)).applying(GaussianBlur(sigma: 1.5))
        #expect(a.key == b.key)
        #expect(a.key != c.key)
        #expect(NodeKey("x", inputs: []).description == NodeKey("x", inputs: []).description)
    }
}

/// Every filter's parameter table is well formed: unique names, documented, values outside the range refused.
@Suite(.timeLimit(.minutes(30)))
struct FilterCatalogTests {
    @Test func parameterTablesAreConsistent() {
        #expect(Set(FilterCatalog.all.map(\.name)).count == FilterCatalog.all.count)
        for info in FilterCatalog.all {
            #expect(!info.summary.isEmpty)
            #expect(Set(info.parameters.map(\.name)).count == info.parameters.count, "\(info.name)")
            for p in info.parameters {
                #expect(p.range.lowerBound < p.range.upperBound, "\(info.name).\(p.name) range")
                #expect(!p.doc.isEmpty)
                #expect(throws: RenderError.self) { try info.validate(p.name, p.range.upperBound + 1) }
            }
            #expect(throws: RenderError.self) { try info.validate("noSuchParameter", 0) }
        }
        #expect(FilterCatalog.info(named: "discBlur")?.coreImageName == "CIDiscBlur")
    }
}
