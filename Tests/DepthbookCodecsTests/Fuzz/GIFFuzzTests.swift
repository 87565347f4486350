import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Mutated GIFs through giflib and Depthbook's reading of its structures (frames on the canvas, colour maps,
/// transparency, delays, the NETSCAPE loop): each decodes or throws a `PhotoError`, and what decodes has one
/// full-canvas frame and one delay per image.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct GIFFuzzTests {
    typealias Seeds = CodecFuzzSeeds

    /// GIFs `GIFEncoder` writes (the Wiggle export), and the classic 1×1 transparent GIF; `Tests/Fuzz/gif/` adds an
    /// interlaced GIF87a and an animation with local colour maps, offsets, disposal and a comment (made with Pillow).
    static func seeds() throws -> [[UInt8]] {
        let oneByOne: [UInt8] = [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x21, 0xF9,
            0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
        ]
        let frames = (0..<3).map { k in
            RGBImage8(width: 8, height: 6, channels: 3, samples: (0..<144).map { UInt8(truncatingIfNeeded: $0 * (k + 3) * 11) })
        }
        return [
            oneByOne, try GIFEncoder.encode(frames: [Seeds.image(4, 4)]), try GIFEncoder.encode(frames: frames, delayCentiseconds: 7, loops: 0),
            try GIFEncoder.encode(frames: Array(frames.prefix(2)), delayCentiseconds: 0, loops: 3),
        ]
    }

    @Test func gifs() async throws {
        let dictionary: [[UInt8]] = [
            [0x21, 0xF9, 0x04], [0x21, 0xFF, 0x0B], [0x21, 0xFE], [0x21, 0x01], [0x2C], [0x3B], [0x00], [0x80], [0x87], [0x40],
        ]
            + MutationFuzzer.tokens(["GIF89a", "GIF87a", "NETSCAPE2.0", "ANIMEXTS1.0"])
        let campaign = MutationFuzzer("gif", seeds: try Self.seeds(), dictionary: dictionary, anchors: [0x21, 0x2C], executions: 80_000)
        let report = await campaign.run { input in
            try Seeds.attempt {
                let animation = try GIFDecoder.decode(input)
                try FuzzFailure.check(animation.frames.count == animation.delays.count,
                                      "\(animation.frames.count) frames, \(animation.delays.count) delays")
                for frame in animation.frames {
                    try FuzzFailure.check(frame.width == animation.width && frame.height == animation.height
                                          && frame.samples.count == frame.width * frame.height * 3, "a frame of \(frame.width)×\(frame.height)")
                }
                return "\(animation.frames.count) frames, loop \(animation.loopCount.map { "\($0 > 0)" } ?? "-")"
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }
}
