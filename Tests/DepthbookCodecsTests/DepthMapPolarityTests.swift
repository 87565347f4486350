import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookCodecs

/// A separate depth map whose grey runs the other way (brighter is farther, as depth rather than disparity)
/// reads as the same relative disparity as its inverse read the usual way.
@Suite(.timeLimit(.minutes(5)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct DepthMapPolarityTests {
    @Test func brighterIsFartherIsTheInverseTurnedOver() throws {
        let image = try FileBytes.read(SharedPhotos.path("depthy__flowers-image.jpg"), limits: .default)
        let nearer = try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__flowers-image.jpg"),
                                          depthMapPath: SharedPhotos.path("depthy__flowers-depth.jpg"))
        let map = try #require(nearer.depth).map
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
        let wrongWay = try #require(try PhotoReader.read(data: image, depthMapData: png).depth).map
        let index = try #require(map.samples.indices.max { map.samples[$0] < map.samples[$1] })
        #expect(wrongWay.samples[index] < 0.01 && read.samples[index] > 0.99)
    }
}

private extension Float {
    func clamped(_ low: Float, _ high: Float) -> Float { Swift.min(high, Swift.max(low, self)) }
}
