import DepthbookEngine
import DepthbookTestSupport
import Testing

/// Lens distortion warps and their inverses; edge-preserving upsampling against bilinear; zoom crops.
@Suite(.timeLimit(.minutes(30)))
struct DepthLensAndUpsamplingTests {
    static let w = 64, h = 48
    static let image = DepthScenes.smoothImage(width: w, height: h)

    /// Barrel distortion: the table goes from 0 at the centre to −6 % at the corners.
    static let barrel = LensDistortionModel(
        center: (33, 23), referenceSize: (128, 96),
        forward: .table((0..<20).map { -0.06 * pow(Double($0) / 19, 2) }), inverse: nil)

    @Test func zeroDistortionIsTheInput() throws {
        let zero = LensDistortionModel(center: (30, 20), referenceSize: (64, 48), forward: .table([0, 0, 0]), inverse: .table([0, 0]))
        for direction in LensWarp.Direction.allCases {
            let node = try EngineFixtures.source(Self.image).applying(LensWarp(model: zero, direction: direction))
            #expect(EngineFixtures.maxDifference(try DepthScenes.render(node).samples, Self.image.samples) < 1e-6)
            let none = try EngineFixtures.source(Self.image).applying(LensWarp(model: Self.barrel, direction: direction, strength: 0))
            #expect(try DepthScenes.render(none).samples == Self.image.samples)
        }
    }

    /// The table follows Apple's reference (lensDistortionPointForPoint in AVCameraCalibrationData.h): entries
    /// evenly spaced from radius 0 to the farthest corner, linearly interpolated, the last one beyond it, and
    /// the point moved by v + m·v. Values worked out by hand for a 64×48 frame centred at (30, 20):
    /// r_max = √(34² + 28²) = 44.0454.
    @Test func tableFollowsApplesReferenceFunction() {
        let model = LensDistortionModel(center: (30, 20), referenceSize: (64, 48), forward: .table([0, 0.01, 0.03, 0.06]), inverse: nil)
        #expect(abs(model.maximumRadius - 44.045431) < 1e-5)
        // r = 20: position 20·3/44.0454 = 1.36223 → m = 0.01 + 0.02·0.36223 = 0.0172446.
        let east = model.distorted((50, 20))
        #expect(abs(east.x - 50.344892) < 1e-5 && abs(east.y - 20) < 1e-9)
        // r = √200 = 14.1421: position 0.96324 → m = 0.0096324, both axes scaled alike.
        let diagonal = model.distorted((40, 30))
        #expect(abs(diagonal.x - 40.096324) < 1e-5 && abs(diagonal.y - 30.096324) < 1e-5)
        // Beyond the farthest corner the last entry holds: 50 px out becomes 53.
        let outside = model.distorted((80, 20))
        #expect(abs(outside.x - 83) < 1e-9)
    }

    @Test func numericInverseUndoesTheForwardMap() {
        for p: (x: Double, y: Double) in [(0.0, 0.0), (100.0, 90.0), (40.0, 30.0), (127.0, 1.0)] {
            let q = Self.barrel.distorted(p)
            let back = Self.barrel.undistorted(q)
            #expect(abs(back.x - p.x) < 1e-6 && abs(back.y - p.y) < 1e-6)
        }
        // Barrel: points move towards the centre.
        let corner = Self.barrel.distorted((0, 0))
        #expect(corner.x > 0 && corner.y > 0)
    }

    /// Re-distorting a barrel correction reads the corners from beyond the rectified frame: those pixels are
    /// black, exactly where the model sends them out of the frame, and every other pixel is sampled.
    @Test func pixelsReadFromBeyondTheFrameAreBlack() throws {
        let white = Raster<Float>(width: Self.w, height: Self.h, channels: 3, repeating: 1)
        let warp = try LensWarp(model: Self.barrel, direction: .distort, strength: 4)
        let out = try DepthScenes.render(try EngineFixtures.source(white).applying(warp)).samples
        let size = PixelSize(width: Self.w, height: Self.h)
        var black = 0
        for y in 0..<Self.h { for x in 0..<Self.w {
            let s = warp.sourcePosition(Double(x) + 0.5, Double(y) + 0.5, size: size)
            let outside = s.x < 0 || s.y < 0 || s.x > Double(Self.w) || s.y > Double(Self.h)
            let v = out[(y * Self.w + x) * 3]
            #expect(outside ? v == 0 : abs(v - 1) < 1e-6, "(\(x), \(y)) reads (\(s.x), \(s.y))")
            if outside { black += 1 }
        } }
        #expect(black > 0, "the exaggerated warp reads from beyond the frame somewhere")
        #expect(out[((Self.h - 1) * Self.w + Self.w - 1) * 3] == 0, "the corner farthest from the centre is outside")
    }

    @Test func correctThenDistortReturnsNearTheInput() throws {
        let corrected = try EngineFixtures.source(Self.image).applying(LensWarp(model: Self.barrel, direction: .correct))
        let back = try corrected.applying(LensWarp(model: Self.barrel, direction: .distort))
        let out = try DepthScenes.render(back).samples
        let changed = try DepthScenes.render(corrected).samples
        // The warp really moves pixels, and the round trip undoes it (interior: corners lose pixels).
        var worst: Float = 0, moved: Float = 0
        for y in 6..<(Self.h - 6) { for x in 6..<(Self.w - 6) { for c in 0..<3 {
            let i = (y * Self.w + x) * 3 + c
            worst = max(worst, abs(out[i] - Self.image.samples[i]))
            moved = max(moved, abs(changed[i] - Self.image.samples[i]))
        } } }
        #expect(moved > 0.02)
        #expect(worst < 0.01)
    }

    @Test func edgePreservingUpsamplingKeepsTheImagesEdgeBetterThanBilinear() throws {
        // Truth at 96×64: near (1) left of column 37, far (0) right of it; the guide has the same edge.
        let W = 96, H = 64, edge = 37
        let guide = Raster<Float>(width: W, height: H, channels: 3,
                                  samples: (0..<(W * H)).flatMap { i -> [Float] in i % W < edge ? [0.9, 0.8, 0.7] : [0.1, 0.2, 0.3] })
        let truth = DepthScenes.plane(width: W, height: H) { x, _ in x < edge ? 1 : 0 }
        // The low-resolution disparity: 4×4 area means (the edge pixel is fractional).
        let low = DepthScenes.plane(width: W / 4, height: H / 4) { x, y in
            var s: Float = 0
            for dy in 0..<4 { for dx in 0..<4 { s += truth[x * 4 + dx, y * 4 + dy, 0] } }
            return s / 16
        }
        let lowNode = try EngineFixtures.source(low, id: "low"), guideNode = try EngineFixtures.source(guide, id: "guide")
        let jbu = try DepthScenes.render(try Node(JointBilateralUpsample(), [lowNode, guideNode])).samples
        let bilinear = try DepthScenes.render(try lowNode.applying(Resample(to: PixelSize(width: W, height: H), method: .bilinear))).samples
        func error(_ s: [Float]) -> Float { zip(s, truth.samples).map { abs($0 - $1) }.reduce(0, +) / Float(s.count) }
        #expect(error(jbu) < error(bilinear) / 2)
        // A region renders the same as the crop of the whole.
        let region = PixelRect(x: 30, y: 10, width: 20, height: 9)
        let node = try Node(JointBilateralUpsample(), [lowNode, guideNode])
        let part = try Evaluator().render(node, RenderTarget(size: node.extent, region: region))
        #expect(EngineFixtures.maxDifference(part.samples, try DepthScenes.render(node).cropped(to: region).samples) < 1e-6)
    }

    @Test func zoomCropShowsTheWindowOfTheMagnifiedInput() throws {
        // A 4×3 plane brought to an 8×6 guide's size, then zoomed 2× around the centre.
        let plane = DepthScenes.plane(width: 4, height: 3) { x, y in Float(y * 4 + x) }
        let guide = try EngineFixtures.source(EngineFixtures.noise(width: 8, height: 6, channels: 3), id: "guide")
        let nearest = try Node(PlaneUpsample(method: .nearest), [EngineFixtures.source(plane), guide])
        #expect(nearest.extent == PixelSize(width: 8, height: 6))
        let zoomed = try nearest.applying(ZoomCrop(zoom: 2, x: 0.5, y: 0.5))
        let out = try DepthScenes.render(zoomed).samples
        // The 16×12 magnification (each plane pixel a 4×4 block), window offset (4, 3).
        for y in 0..<6 { for x in 0..<8 {
            #expect(out[y * 8 + x] == plane[(x + 4) / 4, (y + 3) / 4, 0])
        } }
    }
}

import func Foundation.pow
