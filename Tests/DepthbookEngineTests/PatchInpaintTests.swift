import Testing
@testable import DepthbookEngine

/// The patch fill and the background plate on frames where the answer is known: a periodic texture is copied
/// back exactly where push-pull averages it away; what is not a source never appears; the plate's bands are those
/// of a brute-force count.
struct PatchInpaintTests {
    /// Stripes of period 6 (three dark columns, three bright) with a square hole in the middle.
    static func stripes(width w: Int, height h: Int) -> PixelBuffer {
        PixelBuffer(region: PixelRect(PixelSize(width: w, height: h)), channels: 3,
                    samples: (0..<(w * h)).flatMap { i -> [Float] in (i % w) % 6 < 3 ? [0.2, 0.3, 0.4] : [0.9, 0.8, 0.7] })
    }

    static func square(width w: Int, height h: Int, from lo: Int, to hi: Int) -> [Bool] {
        (0..<(w * h)).map { i in (lo..<hi).contains(i % w) && (lo..<hi).contains(i / w) }
    }

    @Test func aPeriodicTextureIsCopiedBackWherePushPullAveragesIt() throws {
        let w = 96, h = 96
        let truth = Self.stripes(width: w, height: h)
        let hole = Self.square(width: w, height: h, from: 36, to: 60)
        var damaged = truth
        for i in 0..<(w * h) where hole[i] { for k in 0..<3 { damaged.samples[i * 3 + k] = 0 } }
        let filled = try PatchInpaint.filled(damaged, hole: hole, source: hole.map { !$0 })
        var weights = [Float](repeating: 1, count: w * h)
        for i in 0..<(w * h) where hole[i] { weights[i] = 0 }
        let averaged = PushPull.fill(colors: damaged.samples, weights: weights, channels: 3, width: w, height: h)
        func error(_ samples: [Float]) -> Double {
            var sum = 0.0, n = 0.0
            for i in 0..<(w * h) where hole[i] { for k in 0..<3 { sum += abs(Double(samples[i * 3 + k] - truth.samples[i * 3 + k])); n += 1 } }
            return sum / n
        }
        let patch = error(filled.samples), smooth = error(averaged)
        print("patch-inpaint stripes mean-abs patch=\(patch) push-pull=\(smooth)")
        // The stripes' contrast is 0.7, 0.5 and 0.3: averaged, the hole is off by about half of it everywhere.
        #expect(smooth > 0.15)
        #expect(patch < 0.02, "the stripes are copied back (mean error \(patch))")
        for i in 0..<(w * h) where !hole[i] { #expect(filled.samples[i * 3] == truth.samples[i * 3]) }
    }

    @Test func whatIsNotASourceNeverAppears() throws {
        let w = 64, h = 64
        var image = Self.stripes(width: w, height: h)
        // A red block beside the hole that is not a source: the subject in front.
        let red = Self.square(width: w, height: h, from: 8, to: 24)
        for i in 0..<(w * h) where red[i] { image.samples[i * 3] = 1; image.samples[i * 3 + 1] = 0; image.samples[i * 3 + 2] = 0 }
        let hole = Self.square(width: w, height: h, from: 24, to: 40)
        let filled = try PatchInpaint.filled(image, hole: hole, source: (0..<(w * h)).map { !hole[$0] && !red[$0] })
        var reddest: Float = 0
        for i in 0..<(w * h) where hole[i] { reddest = max(reddest, filled.samples[i * 3] - filled.samples[i * 3 + 1]) }
        // The stripes' own red excess is 0.1 at most.
        #expect(reddest <= 0.1 + 1e-5, "red from the block reached the hole (\(reddest))")
    }

    @Test func nothingToFillAndNoSourceToFillFrom() throws {
        let w = 16, h = 16
        let image = Self.stripes(width: w, height: h)
        let none = [Bool](repeating: false, count: w * h)
        #expect(try PatchInpaint.filled(image, hole: none, source: none.map { !$0 }).samples == image.samples)
        // The whole frame but a thin border is a hole: no 5×5 patch of source exists, push-pull fills it.
        let hole = Self.square(width: w, height: h, from: 1, to: 15)
        let filled = try PatchInpaint.filled(image, hole: hole, source: hole.map { !$0 })
        #expect(filled.samples.allSatisfy { $0.isFinite && $0 >= 0.2 - 1e-5 && $0 <= 0.9 + 1e-5 })
    }

    /// The plate replaces the subject's pixels within the band of its edge and two pixels beyond; it copies from
    /// what lies more than two pixels from the subject. Checked against counting distances one pixel at a time.
    @Test func thePlatesBandsAreThoseOfABruteForceCount() {
        let w = 40, h = 30, cx = 18, cy = 14, radius = 9
        let front: [Float] = (0..<(w * h)).map { i in
            let dx = i % w - cx, dy = i / w - cy
            return dx * dx + dy * dy <= radius * radius ? 1 : 0
        }
        let band = 0.1 // 4 pixels of 40
        let (hole, source) = BackgroundPlate.regions(front: front, size: PixelSize(width: w, height: h), band: band)
        // Chebyshev distance from each pixel to the nearest pixel of the given kind.
        func distance(to kind: Float) -> [Int] {
            (0..<(w * h)).map { i in
                var best = Int.max
                for j in 0..<(w * h) where front[j] == kind { best = min(best, max(abs(i % w - j % w), abs(i / w - j / w))) }
                return best
            }
        }
        let toBackground = distance(to: 0), toFront = distance(to: 1)
        let inBand = (0..<(w * h)).map { front[$0] == 1 && toBackground[$0] <= 4 }
        for i in 0..<(w * h) {
            var nearBand = false
            for j in 0..<(w * h) where inBand[j] && max(abs(i % w - j % w), abs(i / w - j / w)) <= 2 { nearBand = true }
            #expect(hole[i] == nearBand, "pixel \(i % w),\(i / w)")
            #expect(source[i] == (!nearBand && toFront[i] > 2), "pixel \(i % w),\(i / w)")
        }
        #expect(hole.contains(true) && !hole[cy * w + cx], "the subject's middle stays")
    }
}

/// What the dolly zoom asks of the plate: one size for every preview up to 736 px, the target's above, never
/// wider than 1024; and a fill that stops when the render is cancelled.
struct BackgroundPlateSizeTests {
    struct Cancelled: Error {}

    @Test func onePlateForThePreviewsAndABoundAboveThem() {
        let photo = PixelSize(width: 3024, height: 4032)
        func width(_ w: Int, extent: PixelSize = photo) -> Int {
            DollyZoom.plateSize(for: PixelSize(width: w, height: w * 4 / 3), extent: extent).width
        }
        #expect(width(184) == 736 && width(368) == 736 && width(736) == 736)
        #expect(width(1000) == 1000 && width(1024) == 1024 && width(3024) == 1024)
        #expect(width(200, extent: PixelSize(width: 500, height: 400)) == 500, "a small photo's plate at its own width")
        #expect(DollyZoom.plateSize(for: PixelSize(width: 368, height: 491), extent: photo) == PixelSize(width: 736, height: 982))
    }

    @Test func theFillStopsWhenCancelled() {
        let w = 64, h = 64
        let hole = PatchInpaintTests.square(width: w, height: h, from: 20, to: 44)
        var calls = 0
        #expect(throws: Cancelled.self) {
            _ = try PatchInpaint.filled(PatchInpaintTests.stripes(width: w, height: h), hole: hole, source: hole.map { !$0 }) {
                calls += 1
                if calls == 2 { throw Cancelled() }
            }
        }
        #expect(calls == 2, "stopped at the second pass")
    }
}
