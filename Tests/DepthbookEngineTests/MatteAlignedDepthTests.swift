@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// The depth the dolly zoom moves the photo by, its subject edge put on the subject's mask (`MatteAlignedDepth`).
/// The scene: a square subject (depth 1) on a wall (depth 3) whose map is softer than the mask, a ramp from 1 to
/// 3 over the 8 px outside the mask (a TrueDepth map's halo), with a strand of the wall's depth inside the mask.
@Suite(.timeLimit(.minutes(30)))
struct MatteAlignedDepthTests {
    static let w = 80, h = 80, radius = 12
    static let size = PixelSize(width: w, height: h)

    /// The mask: 1 on the square 20..<60 × 20..<60, 0 elsewhere.
    static func inside(_ x: Int, _ y: Int) -> Bool { (20..<60).contains(x) && (20..<60).contains(y) }
    static let front: [Float] = (0..<(w * h)).map { inside($0 % w, $0 / w) ? 1 : 0 }

    /// Chebyshev distance from the square (0 inside).
    static func distance(_ x: Int, _ y: Int) -> Int { max(max(20 - x, x - 59, 0), max(20 - y, y - 59, 0)) }

    static let depth: [Float] = (0..<(w * h)).map { i in
        let x = i % w, y = i / w
        if inside(x, y) { return x == 40 && y < 30 ? 3 : 1 }  // the strand: column 40, rows 20..<30
        let d = distance(x, y)
        return d <= 8 ? 1 + 2 * Float(d) / 8 : 3
    }

    @Test func theHaloGoesBackToTheWallAndTheStrandToTheSubject() {
        let out = MatteAlignedDepth.aligned(Self.depth, front: Self.front, size: Self.size, radius: Self.radius)
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                let v = out[y * Self.w + x]
                // Inside, the subject's own depth (the strand included); outside, the wall's, to within push-pull's
                // rounding of a constant.
                let expected: Float = Self.inside(x, y) ? 1 : 3
                #expect(abs(v - expected) < 1e-4, "(\(x), \(y)): \(v), not \(expected)")
            }
        }
    }

    /// Past the band the map is left as it is, and so is what already lies on the right side of the edge: a post
    /// nearer than the wall beyond the band, a wall farther than the continuation.
    @Test func pastTheBandNothingChanges() {
        var depth = Self.depth
        // A post at depth 2 on columns 74..<78, past the band's 12 px from the square (its nearest column is 14 away).
        for y in 0..<Self.h { for x in 74..<78 { depth[y * Self.w + x] = 2 } }
        let out = MatteAlignedDepth.aligned(depth, front: Self.front, size: Self.size, radius: Self.radius)
        for y in 0..<Self.h {
            for x in 0..<Self.w where Self.distance(x, y) > Self.radius {
                #expect(out[y * Self.w + x] == depth[y * Self.w + x], "(\(x), \(y)) changed")
            }
        }
    }

    /// A mask across a continuous surface (a floor receding from 2 to 3, its near half the mask) is no step in
    /// depth: the floor is left exactly as it is, not cut in two along the band.
    @Test func aMaskAcrossAContinuousFloorChangesNothing() {
        let floor: [Float] = (0..<(Self.w * Self.h)).map { 3 - Float($0 / Self.w) / Float(Self.h - 1) }
        let mask: [Float] = (0..<(Self.w * Self.h)).map { $0 / Self.w >= 40 ? 1 : 0 }
        #expect(MatteAlignedDepth.aligned(floor, front: mask, size: Self.size, radius: Self.radius) == floor)
    }

    /// No edge (the mask all one side) leaves the depth exactly as it was.
    @Test(arguments: [Float(0), 1])
    func withoutAnEdgeTheDepthStays(mask: Float) {
        let out = MatteAlignedDepth.aligned(Self.depth, front: [Float](repeating: mask, count: Self.w * Self.h), size: Self.size, radius: Self.radius)
        #expect(out == Self.depth)
    }

    /// Through the engine: the filter's output at a preview size is the aligned depth of its inputs at that size,
    /// and an all-hole depth is refused, not drawn.
    @Test func theFilterAlignsWhatItIsGiven() throws {
        let depth = try EngineFixtures.source(Raster<Float>(width: Self.w, height: Self.h, channels: 1, samples: Self.depth), id: "depth")
        let mask = try EngineFixtures.source(Raster<Float>(width: Self.w, height: Self.h, channels: 1, samples: Self.front), id: "mask")
        let filter = try MatteAlignedDepth(band: Double(Self.radius) / Double(Self.w))
        let out = try DepthScenes.render(try Node(filter, [depth, mask]))
        #expect(out.samples == MatteAlignedDepth.aligned(Self.depth, front: Self.front, size: Self.size, radius: Self.radius))
        let holes = try EngineFixtures.source(Raster<Float>(width: 8, height: 8, channels: 1, samples: [Float](repeating: .nan, count: 64)), id: "holes", hasHoles: true)
        let small = try EngineFixtures.source(Raster<Float>(width: 8, height: 8, channels: 1, samples: [Float](repeating: 1, count: 64)), id: "small")
        #expect(throws: RenderError.missingPlane("valid depth (the depth plane is all holes)")) { try DepthScenes.render(try Node(filter, [holes, small])) }
    }
}
