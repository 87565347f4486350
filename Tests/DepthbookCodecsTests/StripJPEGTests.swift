import DepthbookEngine
import Foundation
import Testing

@testable import DepthbookCodecs

/// JPEG encoded in strips on several cores and joined with restart markers, against the single-pass encode
/// of the same pixels by libjpeg-turbo: the decoded pixels must be identical.
@Suite(.timeLimit(.minutes(30)))
struct StripJPEGTests {
    /// A noisy gradient, so every MCU has non-trivial AC coefficients.
    static func image(width: Int, height: Int) -> RGBImage8 {
        var image = RGBImage8(width: width, height: height, channels: 3, repeating: 0)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    image[x, y, c] = UInt8(truncatingIfNeeded: (x * (c + 1) + y * (3 - c)) / 3 + Int(seed >> 28))
                }
            }
        }
        return image
    }

    static func decode(_ jpeg: [UInt8]) throws -> RGBImage8 {
        try TurboJPEGDecoder.decode(jpeg[...], gray: false, limits: .default, what: "test")
    }

    /// Sizes: exact multiples of 16, odd ones (a partial last MCU row and column), and a last strip shorter
    /// than the others; 2 to 5 strips.
    @Test(arguments: [(64, 64, 2), (161, 97, 2), (161, 250, 3), (1280, 960, 2), (333, 517, 5), (48, 33, 2)])
    func stripsDecodeToTheSinglePassPixels(width: Int, height: Int, threads: Int) throws {
        let image = Self.image(width: width, height: height)
        let single = try JPEGEncoder.encode(image, quality: 85)
        let strips = try JPEGEncoder.encode(image, quality: 85, threads: threads)
        #expect(strips != single)
        #expect(try Self.decode(strips) == Self.decode(single))

        let structure = try JPEGStructure(strips)
        #expect(structure.width == width && structure.height == height && structure.components == 3)
        let plan = try #require(JPEGEncoder.StripPlan.forRGB(width: width, height: height, threads: threads))
        #expect(plan.count >= threads && plan.count <= 2 * threads)
        let dri = try #require(structure.segments.first { $0.marker == 0xDD })
        #expect(Int(strips[dri.payload.lowerBound]) << 8 | Int(strips[dri.payload.lowerBound + 1]) == plan.restartInterval)
        #expect(plan.restartInterval == (width + 15) / 16 * plan.rowsPerStrip / 16)
        // One restart marker between strips, numbered 0, 1, 2... (after the header, 0xFF is always stuffed
        // with 0x00 or starts a marker).
        let sos = try #require(structure.segments.first { $0.marker == 0xDA })
        var restarts: [UInt8] = []
        var i = sos.payload.upperBound
        while i + 1 < strips.count {
            if strips[i] == 0xFF, (0xD0...0xD7).contains(strips[i + 1]) { restarts.append(strips[i + 1]) }
            i += 1
        }
        #expect(restarts == (0..<(plan.count - 1)).map { 0xD0 + UInt8($0 % 8) })
        // A few bytes a strip: its RST marker and the padding of its last byte, plus the DRI segment.
        #expect(strips.count - single.count <= 3 * plan.count + 6)
    }

    /// A mask's grey plane in strips of 8-pixel MCU rows decodes to the single-pass grey JPEG's pixels.
    @Test(arguments: [(161, 97, 2), (736, 552, 2), (333, 517, 5)])
    func greyStripsDecodeToTheSinglePassPixels(width: Int, height: Int, threads: Int) throws {
        let rgb = Self.image(width: width, height: height)
        let grey = Raster<UInt8>(width: width, height: height, channels: 1,
                                 samples: stride(from: 0, to: rgb.samples.count, by: 3).map { rgb.samples[$0] })
        let single = try JPEGEncoder.encode(grey, quality: 85)
        let strips = try JPEGEncoder.encode(grey, quality: 85, threads: threads)
        #expect(strips != single)
        let structure = try JPEGStructure(strips)
        #expect(structure.width == width && structure.height == height && structure.components == 1)
        let decode = { (jpeg: [UInt8]) in try TurboJPEGDecoder.decode(jpeg[...], gray: true, limits: .default, what: "test") }
        let back = try decode(strips)
        #expect(back.samples == (try decode(single)).samples)
        let error = zip(back.samples, grey.samples).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(error) / Double(grey.samples.count) < 8)
    }

    /// Images too short to split, and one thread, are the plain single-pass encode.
    @Test func shortImagesAndOneThreadAreEncodedInOnePass() throws {
        for (w, h, t) in [(100, 31, 2), (100, 200, 1), (1, 1, 4)] {
            let image = Self.image(width: w, height: h)
            #expect(try JPEGEncoder.encode(image, quality: 80, threads: t) == JPEGEncoder.encode(image, quality: 80))
        }
    }

    /// A wide image keeps each strip under DRI's 65535-MCU limit by cutting more strips than threads.
    @Test func wideImagesKeepTheRestartIntervalIn16Bits() throws {
        let plan = try #require(JPEGEncoder.StripPlan(width: 65_000, height: 2_000, mcuSize: 16, strips: 2))
        #expect(plan.restartInterval <= 65_535 && plan.count > 2)
        #expect(plan.rowsPerStrip * (plan.count - 1) < 2_000 && plan.rowsPerStrip * plan.count >= 2_000)
    }

    /// The joiner refuses strips it cannot join exactly.
    @Test func joinerRejectsMismatchedOrBrokenStrips() throws {
        let a = try JPEGEncoder.encode(Self.image(width: 32, height: 32), quality: 85)
        let b = try JPEGEncoder.encode(Self.image(width: 32, height: 32), quality: 60)  // other quantisation tables
        var joiner = RestartStripJoiner(restartInterval: 4)
        try joiner.append(a)
        #expect(throws: PhotoError.self) { try joiner.append(b) }
        #expect(throws: PhotoError.self) { try joiner.append(Array(a.dropLast(2))) }
        #expect(throws: PhotoError.self) { try RestartStripJoiner.parts(of: [0xFF, 0xD8, 0xFF, 0xD9]) }
    }
}
