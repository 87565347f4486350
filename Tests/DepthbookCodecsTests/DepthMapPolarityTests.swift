import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookCodecs

/// Which way a separate depth map's grey runs: stated (brighter nearer or farther) or detected from the map
/// and its image, the default.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct DepthMapPolarityTests {
    /// A separate depth map whose grey runs the other way (brighter is farther, as depth rather than disparity)
    /// reads as the same relative disparity as its inverse read the usual way.
    @Test func brighterIsFartherIsTheInverseTurnedOver() throws {
        let image = try FileBytes.read(SharedPhotos.path("depthy__flowers-image.jpg"), limits: .default)
        let nearer = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__flowers-image.jpg"),
                                          depthMapPath: SharedPhotos.path("depthy__flowers-depth.jpg"), polarity: .brighterIsNearer)
        let map = try #require(nearer.depth).map
        #expect(nearer.depth?.greyPolarity == GreyPolarity(brighterIsNearer: true, detected: false))
        // The same map written brighter-is-farther: 255 − grey, losslessly as PNG.
        let inverted = Raster<UInt8>(width: map.width, height: map.height, channels: 1,
                                     samples: map.samples.map { UInt8((255 - ($0 * 255).rounded()).clamped(0, 255)) })
        let png = try PNGCodec.encode(inverted)
        let farther = try PhotoReader.read(data: image, depthMapData: png, polarity: .brighterIsFarther)
        let read = try #require(farther.depth).map
        #expect(read.width == map.width && read.height == map.height)
        let worst = zip(read.samples, map.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1.0 / 255 + 1e-6, "largest difference \(worst)")
        // Read the usual way instead, it is the opposite: what was near is now far.
        let wrongWay = try #require(try PhotoReader.read(data: image, depthMapData: png, polarity: .brighterIsNearer).depth).map
        let index = try #require(map.samples.indices.max { map.samples[$0] < map.samples[$1] })
        #expect(wrongWay.samples[index] < 0.01 && read.samples[index] > 0.99)
    }

    static let depthyPairs = ["flowers", "hut", "mango", "shelf", "tunnel"]

    /// depthy's maps are brighter where things are farther (the tunnel's far end is white, the flowers' front
    /// row dark): each is detected so, and read as 1 − grey.
    @Test(arguments: DepthMapPolarityTests.depthyPairs)
    func depthyMapsAreDetectedBrighterFarther(_ name: String) throws {
        let depthFile = SharedPhotos.path("depthy__\(name)-depth.jpg")
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__\(name)-image.jpg"), depthMapPath: depthFile)
        let depth = try #require(photo.depth)
        #expect(depth.greyPolarity == GreyPolarity(brighterIsNearer: false, detected: true))
        let grey = try TurboJPEGDecoder.decode(try SharedPhotos.bytes("depthy__\(name)-depth.jpg")[...], gray: true, limits: .default, what: "test")
        let expected = grey.samples.map { 1 - Float($0) / 255 }
        #expect(EngineFixtures.maxDifference(depth.map.samples, expected) < 1e-6)
        let facts = try #require(PhotoFacts(photo).depth)
        #expect(facts.polarity == "brighterFarther" && facts.polarityDetected == true)

        // The cues that decided it, printed for the record: the ground plane is the strong one.
        let decision = DepthMapPolarityDetector.decide(map: DepthPlanes.unitPlane(grey), image: photo.image, faces: photo.faces)
        print("polarity cues \(name): ground \(decision.ground) focus \(decision.focus)",
              "faces \(decision.faces.map { "\($0)" } ?? "none") score \(decision.score)")
        #expect(decision.ground < -0.3)
        // A stated polarity is taken as it is, even the wrong one.
        let stated = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__\(name)-image.jpg"), depthMapPath: depthFile, polarity: .brighterIsNearer)
        #expect(stated.depth?.greyPolarity == GreyPolarity(brighterIsNearer: true, detected: false))
        #expect(PhotoFacts(stated).depth?.polarity == "brighterNearer" && PhotoFacts(stated).depth?.polarityDetected == false)
    }

    /// A photo's own depth (GDepth; Apple's portrait disparity with its faces), written as an 8-bit grey map
    /// brighter-nearer and again turned over, and given as a separate file: both are detected the right way
    /// and open with the same disparity plane.
    @Test(arguments: ["exifr__with_deth_map.jpg", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"])
    func ownMapAndItsInverseOpenAlike(_ file: String) throws {
        let bytes = try SharedPhotos.bytes(file)
        let own = try #require(try PhotoReader.read(data: bytes).depth).map
        let range = try #require(own.validRange())
        // Disparity scaled to 0...255, holes written as 0 (far).
        let grey = own.samples.map { v -> UInt8 in v.isNaN ? 0 : UInt8(((v - range.lowerBound) / (range.upperBound - range.lowerBound) * 255).rounded()) }
        let nearerPNG = try PNGCodec.encode(Raster<UInt8>(width: own.width, height: own.height, channels: 1, samples: grey))
        let fartherPNG = try PNGCodec.encode(Raster<UInt8>(width: own.width, height: own.height, channels: 1, samples: grey.map { 255 - $0 }))

        let nearer = try #require(try PhotoReader.read(data: bytes, depthMapData: nearerPNG).depth)
        let farther = try #require(try PhotoReader.read(data: bytes, depthMapData: fartherPNG).depth)
        #expect(nearer.greyPolarity == GreyPolarity(brighterIsNearer: true, detected: true))
        #expect(farther.greyPolarity == GreyPolarity(brighterIsNearer: false, detected: true))
        #expect(nearer.map.width == own.width && nearer.map.height == own.height)
        #expect(EngineFixtures.maxDifference(nearer.map.samples, farther.map.samples) < 1e-6)
        #expect(EngineFixtures.maxDifference(nearer.map.samples, grey.map { Float($0) / 255 }) < 1e-6)
    }

    /// Every cue turns over with the map, and a flat map is read the common way (brighter nearer).
    @Test func cuesChangeSignWithTheMap() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__tunnel-image.jpg"))
        let grey = DepthPlanes.unitPlane(try TurboJPEGDecoder.decode(try SharedPhotos.bytes("depthy__tunnel-depth.jpg")[...], gray: true,
                                                                    limits: .default, what: "test"))
        var inverse = grey
        inverse.samples = grey.samples.map { 1 - $0 }
        let faces = [FaceRegion(x: 300, y: 300, width: 200, height: 200)]
        let a = DepthMapPolarityDetector.decide(map: grey, image: photo.image, faces: faces)
        let b = DepthMapPolarityDetector.decide(map: inverse, image: photo.image, faces: faces)
        // Exactly opposite but for cells whose means tie on one side and not, by a rounding, on the other.
        #expect(abs(a.ground + b.ground) < 1e-3 && abs(a.focus + b.focus) < 1e-3)
        #expect(abs((a.faces ?? 0) + (b.faces ?? 0)) < 1e-3 && a.faces != nil)
        #expect(a.polarity != b.polarity)
        // (That box lies on the tunnel's far end, so it pulls towards brighter-nearer; with no face it is farther.)
        #expect(DepthMapPolarityDetector.decide(map: grey, image: photo.image, faces: []).polarity == .brighterIsFarther)
        let flat = FloatPlane(width: grey.width, height: grey.height, channels: 1, repeating: 0.5)
        let none = DepthMapPolarityDetector.decide(map: flat, image: photo.image, faces: [])
        #expect(none.score == 0 && none.polarity == .brighterIsNearer)
    }
}

private extension Float {
    func clamped(_ low: Float, _ high: Float) -> Float { Swift.min(high, Swift.max(low, self)) }
}
