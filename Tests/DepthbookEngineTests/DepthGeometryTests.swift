import DepthbookEngine
import DepthbookTestSupport
import Testing

/// Dolly zoom, parallax (Wiggle) and point clouds: identities, and geometry against the pinhole formulas.
@Suite(.timeLimit(.minutes(30)))
struct DepthGeometryTests {
    static let w = 40, h = 30
    static let image = DepthScenes.smoothImage(width: w, height: h)
    /// A near square (depth 0.5) in front of a focal-plane background (depth 1), one hole.
    static let depth: Raster<Float> = {
        var d = DepthScenes.plane(width: w, height: h) { x, y in (15..<25).contains(x) && (10..<20).contains(y) ? 0.5 : 1 }
        d.samples[3] = .nan
        return d
    }()
    static let focal = 35.0

    func sources() throws -> (Node, Node) {
        (try EngineFixtures.source(Self.image, id: "img"), try EngineFixtures.source(Self.depth, id: "depth", hasHoles: true))
    }

    @Test(arguments: [false, true])
    func dollyDistanceZeroIsTheInput(_ stretch: Bool) throws {
        let (img, depth) = try sources()
        let node = try Node(DollyZoom(dolly: 0, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15,
                                      stretchesEdges: stretch, stretchesUncovered: stretch), [img, depth])
        let out = try DepthScenes.render(node).samples
        #expect(EngineFixtures.maxDifference(out, Self.image.samples) < 1e-4)
    }

    @Test func dollyingInGrowsTheNearSquareAndKeepsTheFocalPlane() throws {
        let (img, depth) = try sources()
        let zoom = try DollyZoom(dolly: 0.3, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15, stretchesUncovered: false)
        // s = Z(Zf − t)/(Zf(Z − t)) = 0.5·0.7/0.2 = 1.75 for the square; 1 on the focal plane.
        #expect(abs(zoom.radialScale(depth: 0.5) - 1.75) < 1e-12)
        #expect(abs(zoom.radialScale(depth: 1) - 1) < 1e-12)
        // Paint the square's texture red to follow it.
        var marked = Self.image
        for y in 10..<20 { for x in 15..<25 { marked[x, y, 0] = 5 } }
        let node = try Node(zoom, [EngineFixtures.source(marked, id: "marked"), depth])
        let out = try DepthScenes.render(node).samples
        // Along the centre row the square (columns 15..<25) grows about x = 20 to about 11.25...28.75.
        let row = 15
        let red = (0..<Self.w).filter { out[(row * Self.w + $0) * 3] > 2 }
        // The mesh's inner vertices (columns 16 and 24, step 2) land at 13 and 27: 1.75 × 8 = 14 columns.
        #expect(red.count >= 14 && red.count <= 20)
        #expect(red.allSatisfy { (10...29).contains($0) })
        #expect(Set(13...26).isSubset(of: Set(red)))
        // Far from the square the focal plane is untouched.
        for (x, y) in [(1, 1), (38, 28), (2, 27), (37, 2)] {
            for c in 0..<3 {
                #expect(abs(out[(y * Self.w + x) * 3 + c] - Self.image[x, y, c]) < 1e-4)
            }
        }
        _ = img
    }

    /// Travel past the nearest depth is held at `nearestTravel` of it: asked for 0.9 of the way to the focal plane
    /// (beyond the square at 0.5, which would vanish behind the camera), the camera stops at 0.3, 60 % of the way
    /// to the square, and the picture is the one a travel of 0.3 makes.
    @Test func theCameraStopsShortOfTheNearestDepth() throws {
        let (img, depth) = try sources()
        let far = try DepthScenes.render(try Node(DollyZoom(dolly: 0.9, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15,
                                                            stretchesUncovered: false), [img, depth])).samples
        let held = try DepthScenes.render(try Node(DollyZoom(dolly: 0.3, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15,
                                                             stretchesUncovered: false), [img, depth])).samples
        #expect(DollyZoom.nearestTravel == 0.6)
        #expect(EngineFixtures.maxDifference(far, held) < 1e-6)
    }

    @Test func movingInInBlackModeUncoversBlackBorders() throws {
        let (img, depth) = try sources()
        let node = try Node(DollyZoom(dolly: 0, focalDepth: 0.5, focalLength: Self.focal, cx: 20, cy: 15, stretchesUncovered: false), [img, depth])
        #expect(try DepthScenes.render(node).samples.allSatisfy { $0.isFinite })
        // Focal plane on the square, camera moved in with a wider view: the farther background shrinks,
        // and the virtual camera sees past the photo's edges, left black.
        let back = try Node(DollyZoom(dolly: 0.5, focalDepth: 0.5, focalLength: Self.focal, cx: 20, cy: 15, stretchesUncovered: false), [img, depth])
        let out = try DepthScenes.render(back).samples
        #expect(out[0] == 0 && out[1] == 0 && out[2] == 0)
        let stretched = try Node(DollyZoom(dolly: 0.5, focalDepth: 0.5, focalLength: Self.focal, cx: 20, cy: 15, stretchesEdges: true), [img, depth])
        let filled = try DepthScenes.render(stretched).samples
        #expect(filled[1] > 0.05)
    }

    /// As in the talk: what the subject uncovers is stretched from its edge, never black, unless asked; the view
    /// past the photo's edges is black unless asked to stretch. (Green is at least 0.1 everywhere in the image.)
    @Test func uncoveredAreasAndFrameEdgesAreFilledApart() throws {
        let (img, depth) = try sources()
        let w = Self.w
        func green(_ zoom: DollyZoom) throws -> [Float] {
            let out = try DepthScenes.render(Node(zoom, [img, depth])).samples
            return stride(from: 1, to: out.count, by: 3).map { out[$0] }
        }
        // Focal plane on the background, camera pulled back: the square (s = 0.5·1.9/1.4 ≈ 0.68) shrinks and
        // uncovers a ring around it (columns 15 and 24 of the centre row); the frame stays where it was.
        let pulled = try green(DollyZoom(dolly: -0.9, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15))
        #expect(pulled.allSatisfy { $0 > 0.05 })
        let holes = try green(DollyZoom(dolly: -0.9, focalDepth: 1, focalLength: Self.focal, cx: 20, cy: 15,
                                        stretchesUncovered: false))
        #expect(holes[15 * w + 15] == 0 && holes[15 * w + 24] == 0)
        #expect(holes[2 * w + 2] > 0.05)
        // Focal plane on the square, camera moved in: the background shrinks and the corners see past the frame.
        let inward = try green(DollyZoom(dolly: 0.5, focalDepth: 0.5, focalLength: Self.focal, cx: 20, cy: 15))
        #expect(inward[0] == 0 && inward[w * Self.h - 1] == 0)
        #expect(inward[15 * w + 20] > 0.05)
        let skirted = try green(DollyZoom(dolly: 0.5, focalDepth: 0.5, focalLength: Self.focal, cx: 20, cy: 15,
                                          stretchesEdges: true))
        #expect(skirted.allSatisfy { $0 > 0.05 })
    }

    @Test func parallaxWithNoStepIsTheInputAndTheFocalPlaneStaysPut() throws {
        let (img, depth) = try sources()
        let still = try Node(ParallaxShift(dx: 0, dy: 0, focus: 0.5, low: 0, high: 2), [img, depth])
        #expect(EngineFixtures.maxDifference(try DepthScenes.render(still).samples, Self.image.samples) < 1e-4)
        // A plane whose every pixel is at the focal disparity never moves, whatever the step.
        let flat = try EngineFixtures.source(DepthScenes.plane(width: Self.w, height: Self.h) { _, _ in 1 }, id: "flat")
        let moved = try Node(ParallaxShift(dx: 8, dy: -5, focus: 0.5, low: 0, high: 2), [img, flat])
        #expect(EngineFixtures.maxDifference(try DepthScenes.render(moved).samples, Self.image.samples) < 1e-4)
    }

    @Test func wiggleFramesLoopAroundACircle() throws {
        let (img, depth) = try sources()
        let offsets = WiggleFrames.offsets(count: 8, amplitude: 4, vertical: 0.5)
        #expect(offsets.count == 8)
        #expect(abs(offsets[0].dx - 4) < 1e-12 && abs(offsets[0].dy) < 1e-12)
        #expect(abs(offsets[2].dx) < 1e-12 && abs(offsets[2].dy - 2) < 1e-12)
        let nodes = try WiggleFrames.nodes(image: img, disparity: depth, count: 8, amplitude: 4, vertical: 0.5, focus: 0.5, low: 0.5, high: 1)
        #expect(nodes.count == 8 && Set(nodes.map(\.key)).count == 8)
        #expect(throws: RenderError.self) { try WiggleFrames.nodes(image: img, disparity: depth, count: 1, amplitude: 4, vertical: 0, focus: 0, low: 0, high: 1) }
    }

    @Test func pointCloudHasOnePointPerValidDepthPixelAtThePinholePosition() throws {
        let k = PinholeIntrinsics(fx: 30, fy: 32, cx: 19, cy: 16)
        let region = PixelRect(x: 0, y: 0, width: Self.w, height: Self.h)
        let depth = PixelBuffer(region: region, channels: 1, samples: Self.depth.samples)
        let image = PixelBuffer(region: region, channels: 3, samples: Self.image.samples)
        let cloud = try PointCloud(depth: depth, image: image, intrinsics: k)
        let valid = Self.depth.samples.filter { !$0.isNaN && $0 > 0 }.count
        #expect(cloud.count == valid && valid == Self.w * Self.h - 1)
        #expect(!cloud.sourcePixel.contains(3))
        for n in [0, 100, cloud.count - 1] {
            let p = Int(cloud.sourcePixel[n]), u = Double(p % Self.w) + 0.5, v = Double(p / Self.w) + 0.5
            let z = Double(Self.depth.samples[p])
            #expect(abs(Double(cloud.x[n]) - (u - 19) * z / 30) < 1e-5)
            #expect(abs(Double(cloud.y[n]) - (v - 16) * z / 32) < 1e-5)
            #expect(cloud.colors[n * 3 + 2] == Self.image.samples[p * 3 + 2])
        }
    }

    @Test func pointCloudFromNoOrbitIsTheImageWithBlackHoles() throws {
        let (img, depth) = try sources()
        let node = try Node(PointCloudRender(yaw: 0, pitch: 0, distance: 0, intrinsics: PinholeIntrinsics(fx: 30, fy: 30, cx: 20, cy: 15)), [img, depth])
        let out = try DepthScenes.render(node).samples
        var expected = Self.image.samples
        expected[9] = 0; expected[10] = 0; expected[11] = 0
        #expect(EngineFixtures.maxDifference(out, expected) < 1e-6)
        // Twice the size: every depth pixel becomes a 2×2 block.
        let big = try DepthScenes.render(node, size: PixelSize(width: 80, height: 60)).samples
        #expect(big[(21 * 80 + 31) * 3] == Self.image[15, 10, 0])
    }

    @Test func backingAwayShrinksTheCloud() throws {
        let (img, depth) = try sources()
        let k = PinholeIntrinsics(fx: 30, fy: 30, cx: 20, cy: 15)
        let near = try DepthScenes.render(try Node(PointCloudRender(yaw: 0, pitch: 0, distance: 0, intrinsics: k), [img, depth]))
        let far = try DepthScenes.render(try Node(PointCloudRender(yaw: 15, pitch: 10, distance: 1, intrinsics: k), [img, depth]))
        func covered(_ b: PixelBuffer) -> Int { (0..<(Self.w * Self.h)).filter { b.samples[$0 * 3 + 2] > 0 }.count }
        #expect(covered(far) < covered(near) / 2)
    }

    /// Orbiting about the near square's depth keeps the square where it was (it sits on the optical axis);
    /// orbiting about the median depth (the background) swings it sideways.
    @Test func theOrbitTurnsAboutThePivotDepth() throws {
        var marked = Self.image
        for y in 10..<20 { for x in 15..<25 { marked[x, y, 0] = 5 } }
        let img = try EngineFixtures.source(marked, id: "marked")
        let depth = try EngineFixtures.source(Self.depth, id: "depth", hasHoles: true)
        let k = PinholeIntrinsics(fx: 30, fy: 30, cx: 20, cy: 15)
        func squareCentreX(_ pivot: Double?) throws -> Double {
            let out = try DepthScenes.render(try Node(PointCloudRender(yaw: 30, pitch: 0, distance: 0, intrinsics: k, pivotDepth: pivot),
                                                      [img, depth])).samples
            let xs = (0..<(Self.w * Self.h)).filter { out[$0 * 3] > 2 }.map { Double($0 % Self.w) + 0.5 }
            return xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count)
        }
        #expect(abs(try squareCentreX(0.5) - 20) < 1.5)
        #expect(abs(try squareCentreX(nil) - 20) > 4)
    }
}
