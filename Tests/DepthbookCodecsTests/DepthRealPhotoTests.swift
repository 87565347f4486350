import DepthbookEngine
import DepthbookTestSupport
import Testing

@testable import DepthbookCodecs

/// The depth operators on real photos from `../shared/photos`, at preview sizes.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct DepthRealPhotoTests {
    static func load(_ name: String) throws -> Photo { try PhotoReader.read(contentsOf: SharedPhotos.path(name)) }

    static func render(_ node: Node, width: Int) throws -> PixelBuffer {
        let size = PixelSize(width: width, height: Int((Double(width) * Double(node.extent.height) / Double(node.extent.width)).rounded()))
        return try Evaluator(context: RenderContext(threads: 2)).render(node, RenderTarget(size: size))
    }

    @Test(arguments: ["pillow_heif__pug.heic", "fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"])
    func pointCloudHasOnePointPerValidDepthPixel(_ name: String) throws {
        let photo = try Self.load(name)
        let depth = try #require(photo.depth).converted(to: .depth)
        let map = depth.map
        let region = PixelRect(x: 0, y: 0, width: map.width, height: map.height)
        let image = try Evaluator().render(try Node(PhotoSource(photo: photo, plane: .image, photoID: name)), RenderTarget(size: region.size))
        let calibration = try #require(photo.calibration)
        let cloud = try PointCloud(depth: PixelBuffer(region: region, channels: 1, samples: map.samples), image: image,
                                   intrinsics: PinholeIntrinsics(calibration, size: region.size))
        let valid = map.samples.filter { !$0.isNaN && $0 > 0 && $0.isFinite }.count
        #expect(cloud.count == valid)
        #expect(valid > map.pixelCount / 2)
        // Every point is in front of the camera and its ray passes back through its own pixel.
        let k = PinholeIntrinsics(calibration, size: region.size)
        for n in stride(from: 0, to: cloud.count, by: max(1, cloud.count / 50)) {
            let p = Int(cloud.sourcePixel[n])
            let u = k.fx * Double(cloud.x[n]) / Double(cloud.z[n]) + k.cx
            #expect(cloud.z[n] > 0 && abs(u - (Double(p % map.width) + 0.5)) < 1e-3)
        }
    }

    @Test func lensCalibrationsInvertAndTheWarpRoundTrips() throws {
        let photo = try Self.load("pillow_heif__pug.heic")
        let calibration = try #require(photo.calibration)
        let model = try #require(LensDistortionModel(calibration))
        // The file's forward and inverse coefficient sets undo each other to within a pixel of the 4032 frame.
        for p: (x: Double, y: Double) in [(0, 0), (4031, 3023), (500, 2500), (2000, 1500), (3500, 200)] {
            let q = model.distorted(p)
            let viaFile = model.undistorted(q)
            #expect(abs(viaFile.x - p.x) < 1 && abs(viaFile.y - p.y) < 1)
        }
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: "pug"))
        let corrected = try image.applying(LensWarp(model: model, direction: .correct, strength: 4))
        let back = try corrected.applying(LensWarp(model: model, direction: .distort, strength: 4))
        let original = try Self.render(image, width: 320).samples
        let moved = try Self.render(corrected, width: 320).samples
        let returned = try Self.render(back, width: 320).samples
        func meanInterior(_ a: [Float]) -> Float {
            var s: Float = 0, n = 0
            for y in 20..<220 { for x in 20..<300 { for c in 0..<3 { s += abs(a[(y * 320 + x) * 3 + c] - original[(y * 320 + x) * 3 + c]); n += 1 } } }
            return s / Float(n)
        }
        #expect(meanInterior(moved) > 2 * meanInterior(returned))
        #expect(meanInterior(returned) < 0.02)
    }

    @Test func identitiesHoldOnARealPortrait() throws {
        let name = "fidmaa-portrait-analyser__heic_depth_data.heic"
        let photo = try Self.load(name)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: name))
        let disparity = try Node(PhotoSource(photo: photo, plane: .disparity, photoID: name))
        let depth = try Node(PhotoSource(photo: photo, plane: .depth, photoID: name))
        let range = try #require(photo.depth?.converted(to: .disparity).range)
        let lo = Double(range.lowerBound), hi = Double(range.upperBound)
        let reference = try Self.render(image, width: 240).samples
        let blur = try Node(DepthBlur(aperture: 22, maxRadius: 60, focusNear: 0, focusFar: 1, low: lo, high: hi), [image, disparity])
        #expect(try Self.render(blur, width: 240).samples == reference)
        let darken = try Node(DarkenByDisparity(power: 0, low: lo, high: hi), [image, disparity])
        #expect(try Self.render(darken, width: 240).samples == reference)
        let k = try #require(photo.calibration)
        let still = try Node(DollyZoom(dolly: 0, focalDepth: 1, focalLength: k.fx, cx: k.cx, cy: k.cy), [image, depth])
        #expect(EngineFixtures.maxDifference(try Self.render(still, width: 240).samples, reference) < 1e-4)
        // A real blur changes the background but keeps the matte's subject.
        let matte = try Node(PhotoSource(photo: photo, plane: .matte(.portraitEffectsMatte), photoID: name))
        let focused = try Node(DepthBlur(aperture: 1.4, maxRadius: 60, focusNear: 0.7, focusFar: 1, low: lo, high: hi, subject: 0.85),
                               [image, disparity, matte])
        let out = try Self.render(focused, width: 240).samples
        #expect(EngineFixtures.maxDifference(out, reference) > 0.05)
    }

    @Test func wiggleOfARealPhotoBecomesAGIF() throws {
        let name = "pillow_heif__pug.heic"
        let photo = try Self.load(name)
        let image = try Node(PhotoSource(photo: photo, plane: .image, photoID: name))
        let disparity = try Node(PhotoSource(photo: photo, plane: .disparity, photoID: name))
        let range = try #require(photo.depth?.range)
        let nodes = try WiggleFrames.nodes(image: image, disparity: disparity, count: 4, amplitude: 30, vertical: 0.3, focus: 0.5,
                                           low: Double(range.lowerBound), high: Double(range.upperBound))
        let evaluator = Evaluator(context: RenderContext(threads: 2))
        let frames = try nodes.map { try evaluator.renderBytes($0, RenderTarget(size: PixelSize(width: 160, height: 120))) }
        #expect(frames[0].samples != frames[2].samples)
        let gif = try GIFDecoder.decode(try GIFEncoder.encode(frames: frames, delayCentiseconds: 10))
        #expect(gif.frames.count == 4 && gif.width == 160 && gif.height == 120)
    }
}
