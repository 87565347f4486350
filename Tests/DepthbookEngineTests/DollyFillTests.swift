import Testing
@testable import DepthbookEngine

/// The dolly zoom's fill and crop on small frames where the answer is known.
struct DollyFillTests {
    /// Push-pull keeps every pixel of weight 1 and fills a hole from what surrounds it.
    @Test func pushPullKeepsWhatIsKnownAndFillsTheHole() {
        let w = 8, h = 8
        var colors = [Float](repeating: 0.25, count: w * h), weights = [Float](repeating: 1, count: w * h)
        for y in 3...4 { for x in 3...4 { colors[y * w + x] = 0; weights[y * w + x] = 0 } }
        let out = PushPull.fill(colors: colors, weights: weights, channels: 1, width: w, height: h)
        for i in 0..<(w * h) where weights[i] == 1 { #expect(out[i] == 0.25) }
        for y in 3...4 { for x in 3...4 { #expect(abs(out[y * w + x] - 0.25) < 1e-6) } }
    }

    /// A gap between a near (dark) and a far (bright) side is filled from the far side.
    @Test func gapsAreFilledFromTheFarSide() throws {
        let size = PixelSize(width: 12, height: 4)
        var samples = [Float](), covered = [Bool]()
        for _ in 0..<size.height {
            for x in 0..<size.width {
                let near = x < 5, gap = x >= 5 && x < 7
                samples += near ? [0, 0, 0, 1] : [1, 1, 1, gap ? 0 : 4]
                covered.append(!gap)
            }
        }
        let drawn = MeshRasterizer.Result(buffer: PixelBuffer(region: PixelRect(size), channels: 4, samples: samples), covered: covered)
        let out = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil)
        for y in 0..<size.height { for x in 5..<7 { #expect(out.samples[(y * size.width + x) * 3] > 0.9) } }
        #expect(out.samples[0] == 0 && out.samples[(size.width - 1) * 3] == 1)
    }

    /// A tear of four pixels in a blue wall a few pixels from a bright, far background: it shows the wall (the mean
    /// of its border's farther half), not the background. Filled like a gap the subject uncovered, from what lies
    /// farthest around it, it turned almost white (the tunnel's walls, moving in, were flecked with the sunlit
    /// courtyard).
    @Test func aTearInAWallShowsTheWall() throws {
        let size = PixelSize(width: 64, height: 64)
        let wall: [Float] = [0.2, 0.4, 0.8]
        var samples = [Float](), covered = [Bool]()
        for y in 0..<size.height {
            for x in 0..<size.width {
                let tear = (36...37).contains(x) && (30...31).contains(y)
                // The wall's depth differs a little across the tear (what tore the mesh open).
                samples += x >= 40 ? [1, 1, 1, 4] : wall + [x < 36 ? 0.5 : 0.52]
                covered.append(!tear)
            }
        }
        let drawn = MeshRasterizer.Result(buffer: PixelBuffer(region: PixelRect(size), channels: 4, samples: samples), covered: covered)
        #expect(Int(DollyFill.largestTear * Double(size.width * size.height)) <= 4, "four pixels are a tear in this frame")
        for textured in [false, true] {
            let out = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil, textured: textured)
            for y in 30...31 {
                for x in 36...37 {
                    let got = (0..<3).map { out.samples[(y * size.width + x) * 3 + $0] }
                    #expect(zip(got, wall).allSatisfy { abs($0 - $1) < 1e-5 }, "(\(x), \(y)) shows \(got), not the wall")
                }
            }
        }
    }

    /// A gap between a near subject (black) and the floor behind it (grey stripes, depth 2), and another among far
    /// trees (green, depth 4) across the top of the frame, beyond `sourceReach`: the floor's gap gets the floor's
    /// stripes, not the trees. (With one depth threshold for every gap, the trees' gap set it and the floor's gap
    /// turned green: the table's gaps under its chairs showed leaves.)
    @Test func aGapTakesItsTextureFromNearbyNotTheFarthestThingInView() throws {
        let w = 96, h = 96, size = PixelSize(width: w, height: h)
        let floorGap = (0..<(w * h)).map { i in (30..<60).contains(i % w) && (72..<84).contains(i / w) }
        let treesGap = (0..<(w * h)).map { i in (20..<76).contains(i % w) && (4..<14).contains(i / w) }
        let gap = (0..<(w * h)).map { floorGap[$0] || treesGap[$0] }
        var samples = [Float](), covered = [Bool]()
        for i in 0..<(w * h) {
            let x = i % w, y = i / w
            let floor: [Float] = (x / 3) % 2 == 0 ? [0.5, 0.5, 0.5] : [0.7, 0.7, 0.7]
            samples += gap[i] ? [0, 0, 0, 0] : y < 20 ? [0, 1, 0, 4] : y < 72 ? [0, 0, 0, 1] : floor + [2]
            covered.append(!gap[i])
        }
        #expect(Int(DollyFill.sourceReach * Double(w)) < 72 - 20, "the trees lie beyond the reach")
        let drawn = MeshRasterizer.Result(buffer: PixelBuffer(region: PixelRect(size), channels: 4, samples: samples), covered: covered)
        let out = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil, textured: true)
        var green = 0.0, n = 0.0
        for i in 0..<(w * h) where floorGap[i] { green += Double(out.samples[i * 3 + 1] - out.samples[i * 3]); n += 1 }
        print("dolly-fill nearby green-minus-red in the gap \(green / n)")
        #expect(green / n < 0.02, "the gap is \(green / n) greener than grey: the trees, not the floor")
    }

    /// A wide gap beside a near (black) subject, in a striped far wall: textured, the gap gets the wall's stripes
    /// back, and never the subject's black; push-pull alone leaves it flat.
    @Test func aWideGapGetsTheFarSidesTexture() throws {
        let w = 96, h = 96
        let truth = PatchInpaintTests.stripes(width: w, height: h)
        let gap = (0..<(w * h)).map { i in (30..<60).contains(i % w) && (30..<66).contains(i / w) }
        var samples = [Float](), covered = [Bool]()
        for i in 0..<(w * h) {
            let near = i % w < 30 && (20..<76).contains(i / w)
            samples += near ? [0, 0, 0, 1] : gap[i] ? [0, 0, 0, 0] : Array(truth.samples[(i * 3)..<(i * 3 + 3)]) + [4]
            covered.append(!gap[i])
        }
        let drawn = MeshRasterizer.Result(buffer: PixelBuffer(region: PixelRect(PixelSize(width: w, height: h)), channels: 4, samples: samples), covered: covered)
        let size = PixelSize(width: w, height: h)
        let flat = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil)
        let textured = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil, textured: true)
        func error(_ out: PixelBuffer) -> Double {
            var sum = 0.0, n = 0.0
            for i in 0..<(w * h) where gap[i] { for k in 0..<3 { sum += abs(Double(out.samples[i * 3 + k] - truth.samples[i * 3 + k])); n += 1 } }
            return sum / n
        }
        print("dolly-fill stripes mean-abs textured=\(error(textured)) push-pull=\(error(flat))")
        #expect(error(flat) > 0.15)
        #expect(error(textured) < 0.06, "the wall's stripes continue into the gap (mean error \(error(textured)))")
        for i in 0..<(w * h) where gap[i] { #expect(textured.samples[i * 3] >= 0.19, "no subject black in the gap") }
        for i in 0..<(w * h) where covered[i] { #expect(textured.samples[i * 3] == samples[i * 4]) }
    }

    /// Past the photo's edges the view continues what is nearest: a near (dark) band cut by the frame's bottom
    /// edge, pulled up by the camera's travel, leaves a gap below it that is filled dark, not from the far
    /// (bright) wall above; the same gap counted as uncovered by the subject is filled from the wall.
    @Test func theViewPastTheEdgesContinuesWhatIsNearest() throws {
        let size = PixelSize(width: 6, height: 16)
        var samples = [Float](), covered = [Bool]()
        for y in 0..<size.height {
            for _ in 0..<size.width {
                let wall = y < 8, gap = y >= 12
                samples += wall ? [1, 1, 1, 4] : [0, 0, 0, gap ? 0 : 1]
                covered.append(!gap)
            }
        }
        let drawn = MeshRasterizer.Result(buffer: PixelBuffer(region: PixelRect(size), channels: 4, samples: samples), covered: covered)
        let pastEdges = DollyFill.borderConnected(covered, size: size)
        #expect(pastEdges.filter { $0 }.count == 4 * size.width)
        let continued = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: pastEdges, keepBlack: nil)
        let fromBehind = try DollyFill.filled(drawn, channels: 3, size: size, pastEdges: nil, keepBlack: nil)
        for y in 12..<16 {
            #expect(continued.samples[(y * size.width + 2) * 3] < 0.1, "row \(y) continues the near band")
            #expect(fromBehind.samples[(y * size.width + 2) * 3] > 0.5, "row \(y) filled from the wall")
        }
        #expect(continued.samples[0] == 1 && continued.samples[(9 * size.width) * 3] == 0)
    }

    /// The clean rectangle keeps the frame's shape, stays clear of what is outside, and is the whole frame when
    /// nothing is.
    @Test func theCleanRectangleAvoidsWhatIsOutside() {
        let size = PixelSize(width: 20, height: 10)
        var outside = [Bool](repeating: false, count: 200)
        #expect(DollyFill.cleanRect(outside: outside, size: size, centre: (10, 5)) == (0, 0, 20, 10))
        for y in 0..<10 { outside[y * 20] = true; outside[y * 20 + 19] = true }
        let r = DollyFill.cleanRect(outside: outside, size: size, centre: (10, 5))
        #expect(r.x >= 1 && r.x + r.width <= 19 && abs(r.width / r.height - 2) < 1e-9 && r.width > 17)
    }
}
