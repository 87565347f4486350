@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// The dolly zoom's view past the photo's edges (`frame` `fill`): a short mirror image at the edge's depth, then
/// the view cropped to what that covers.
@Suite(.timeLimit(.minutes(30)))
struct DollyFrameTests {
    /// The mirror reads no deeper into the photo than its band from the edge it continues, however far out the
    /// mesh reaches: what lies in the middle (a face) is never copied.
    @Test(arguments: [100, 37, 8])
    func theMirrorNeverReadsPastItsBand(length: Int) {
        let l = Float(length), band = DollyGeometry.mirroredBand * l
        for k in -1200...1600 {
            let p = Float(k) * 0.25
            let m = DollyGeometry.mirror(p, l)
            if p >= 0 && p <= l {
                #expect(m == p)
            } else if p < 0 {
                #expect(m >= 0 && m <= band + 1e-4, "\(p) read at \(m)")
                if -p <= band { #expect(abs(m + p) < 1e-4, "\(p): a mirror next to the edge") }
            } else {
                #expect(m <= l && m >= l - band - 1e-4, "\(p) read at \(m)")
                if p - l <= band { #expect(abs(m - (2 * l - p)) < 1e-4, "\(p): a mirror next to the edge") }
            }
        }
    }

    /// A near band the frame cuts at the bottom (striped, depth 0.5) in front of a far wall (depth 1) that keeps
    /// its size: pulling back shrinks the band, and its continuation past the frame shrinks with it, so the
    /// bottom of the view is still stripes. (With the mirror at the far depth it stayed outside, and the bottom
    /// rows were a smear averaged from the stripes.)
    @Test func aBandTheFrameCutsComesBackWithItsStripes() throws {
        let w = 40, h = 30
        var image = Raster<Float>(width: w, height: h, channels: 3, samples: [Float](repeating: 0, count: w * h * 3))
        for y in 0..<h {
            for x in 0..<w {
                let near = y >= 20
                image[x, y, 0] = near ? ((x / 4) % 2 == 0 ? 1 : 0) : 0.2
                image[x, y, 1] = near ? 0 : 0.8
                image[x, y, 2] = 0.2
            }
        }
        let depth = DepthScenes.plane(width: w, height: h) { _, y in y >= 20 ? 0.5 : 1 }
        let zoom = try DollyZoom(dolly: -0.3, focalDepth: 1, focalLength: 35, cx: 20, cy: 15, frame: .fill, uncovered: .fill)
        // The band shrinks by s = 0.5·1.3/(0.5 + 0.3) ≈ 0.81, so the needed continuation (about 3 rows) is inside
        // the mirror's band (0.15 of 30 = 4.5 rows) and nothing is cropped.
        #expect(abs(zoom.radialScale(depth: 0.5) - 0.8125) < 1e-9)
        let out = try DepthScenes.render(try Node(zoom, [EngineFixtures.source(image, id: "band"), EngineFixtures.source(depth, id: "d")]))
        for y in (h - 3)..<h {
            let reds = (4..<(w - 4)).map { out.samples[(y * w + $0) * 3] }
            let low = reds.filter { $0 < 0.25 }.count, high = reds.filter { $0 > 0.75 }.count
            #expect(low >= 8 && high >= 8, "row \(y) keeps the stripes: \(low) dark, \(high) red of \(reds.count)")
            let greens = (4..<(w - 4)).map { out.samples[(y * w + $0) * 3 + 1] }
            #expect(greens.allSatisfy { $0 < 0.1 }, "row \(y) shows the band, not the wall")
        }
    }

    /// A red head (a disc, depth 1) on a bust that the frame cuts at the bottom, before a blue wall (depth 3)
    /// that keeps its size: pulling back shrinks both by 0.75, and the ring the head uncovers joins the frame's
    /// bottom along the bust's sides. The ring is still a gap inside the photo, showing the background plate (the
    /// wall behind the head's edge); only below the bust, where the photo never reached, is past the frame (left
    /// black). Told apart by reaching the frame's border alone, the ring was past the frame too: black here, and on
    /// the selfie a blurred band of the forehead's skin.
    @Test func theRingAHeadUncoversIsAGapEvenWhenItReachesTheBorder() throws {
        let w = 200, h = 200
        func near(_ x: Int, _ y: Int) -> Bool {
            let dx = Float(x) + 0.5 - 100, dy = Float(y) + 0.5 - 100
            return dx * dx + dy * dy <= 40 * 40 || ((80..<120).contains(x) && y >= 100)
        }
        var image = Raster<Float>(width: w, height: h, channels: 3, samples: [Float](repeating: 0, count: w * h * 3))
        for y in 0..<h { for x in 0..<w { image[x, y, near(x, y) ? 0 : 2] = 1 } }
        let depth = DepthScenes.plane(width: w, height: h) { near($0, $1) ? 1 : 3 }
        let zoom = try DollyZoom(dolly: -0.2, focalDepth: 3, focalLength: 100, cx: 100, cy: 100, frame: .black, uncovered: .fill)
        #expect(abs(zoom.radialScale(depth: 1) - 0.75) < 1e-9)
        let head = try EngineFixtures.source(image, id: "head"), d = try EngineFixtures.source(depth, id: "d")
        let subject = try EngineFixtures.source(DepthScenes.plane(width: w, height: h) { near($0, $1) ? 1 : 0 }, id: "subject")
        let plate = [try Node(BackgroundPlate(layer: .colour), [head, d, subject]), try Node(BackgroundPlate(layer: .depth), [d, subject])]
        let out = try DepthScenes.render(try Node(zoom, [head, d] + plate))
        // Above the head, between its new edge (30 px from the centre) and its old one (40 px).
        for y in 63...67 {
            for x in 96...104 {
                let i = (y * w + x) * 3
                #expect(out.samples[i + 2] > 0.8 && out.samples[i] < 0.2,
                        "(\(x), \(y)) shows \(out.samples[i]), \(out.samples[i + 2]): not the wall")
            }
        }
        // Below the shrunk bust (its bottom now at 175), the photo never reached: black, as the talk leaves it.
        for y in 185..<h { for x in 95...105 { #expect((0..<3).allSatisfy { out.samples[(y * w + x) * 3 + $0] == 0 }, "(\(x), \(y)) is not black") } }
    }
}
