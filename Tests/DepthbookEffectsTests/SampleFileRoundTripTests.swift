import DepthbookCodecs
import DepthbookEngine
import Testing
@testable import DepthbookEffects

/// The server writes the samples as portrait JPEGs with depth at first start; what a test knows about a
/// sample must survive that file, read back the way a phone's photo is read.
@Suite(.timeLimit(.minutes(30)))
struct SampleFileRoundTripTests {
    @Test(arguments: ["portrait", "portrait-outdoor", "still-life"])
    func sampleSurvivesJPEGWithDepth(id: String) throws {
        let photo = try EffectTestSupport.sample(id, width: 192)
        let back = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(photo, quality: 95))
        #expect(back.width == photo.width && back.height == photo.height)
        let depth = try #require(photo.depth), read = try #require(back.depth)
        #expect(read.accuracy == depth.accuracy)
        let disparity = read.converted(to: .disparity).map
        #expect(disparity.width == depth.map.width && disparity.height == depth.map.height)
        // Depth is stored as an 8-bit JPEG over its range: on average within about a step; JPEG rings at the
        // sharp depth edges of a synthetic scene, which are many in a 48-pixel-wide map.
        let range = try #require(depth.range)
        let step = Double(range.upperBound - range.lowerBound) / 255
        var errors = [Double]()
        for (a, b) in zip(depth.map.samples, disparity.samples) where !a.isNaN && !b.isNaN {
            errors.append(abs(Double(a) - Double(b)))
        }
        errors.sort()
        #expect(errors.count > depth.map.pixelCount * 9 / 10)
        let mean = errors.reduce(0, +) / Double(max(1, errors.count))
        let p99 = errors[min(errors.count - 1, errors.count * 99 / 100)]
        #expect(mean < 1.5 * step && p99 < 8 * step)
        #expect(errors.last ?? 0 < 12 * step)
        #expect(back.mattes.map(\.kind) == photo.mattes.map(\.kind))
        #expect(back.faces.count == photo.faces.count)
        if let face = photo.faces.first, let readFace = back.faces.first {
            #expect(abs(readFace.centerX - face.centerX) < 2 && abs(readFace.centerY - face.centerY) < 2)
        }
    }
}
