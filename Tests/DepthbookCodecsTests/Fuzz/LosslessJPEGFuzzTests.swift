import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Mutated lossless (SOF3) JPEG streams through Depthbook's own decoder: each decodes or throws a `PhotoError`,
/// and what decodes has one sample per pixel and component, each within the stated precision.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct LosslessJPEGFuzzTests {
    typealias Seeds = CodecFuzzSeeds

    @Test func losslessStreams() async throws {
        let dictionary: [[UInt8]] = [
            [0xFF, 0xD8], [0xFF, 0xD9], [0xFF, 0xDA], [0xFF, 0xC3], [0xFF, 0xC4], [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x01], [0xFF, 0xD0],
            [0xFF, 0xD7], [0xFF, 0x00], [0xFF, 0xC0], [0xFF, 0xCC], [0xFF, 0xDC], [0xFF, 0xDE], [0x11], [0x22], [0x10], [0x01, 0x00, 0x00],
        ]
        let campaign = MutationFuzzer("lossless-jpeg", seeds: try Seeds.losslessReferences(), dictionary: dictionary, executions: 200_000)
        let report = await campaign.run { input in
            try Seeds.attempt {
                let image = try LosslessJPEGDecoder.decode(input, limits: Seeds.limits, what: "the depth map")
                try FuzzFailure.check(image.samples.count == image.width * image.height * image.components,
                                      "\(image.samples.count) samples for \(image.width)×\(image.height)×\(image.components)")
                let largest = Int(image.samples.max() ?? 0)
                try FuzzFailure.check(largest <= image.maxValue, "a sample of \(largest) in a \(image.precision)-bit image")
                return "\(image.components) components, \(image.precision) bits"
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }
}
