import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Mutated Multi-Picture Format indexes, alone and inside whole portrait files: the index parses or throws a
/// `PhotoError` (and what parses writes back to itself), and a photo file reads or throws a `PhotoError`.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct MPFFuzzTests {
    typealias Seeds = CodecFuzzSeeds

    /// Indexes of one to four images as `MPFIndex.payload` writes them (big-endian), and one little-endian.
    static func indexSeeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for count in 1...4 {
            let entries = (0..<count).map { k in
                MPFIndex.Entry(attributes: k == 0 ? MPFIndex.primaryAttributes : MPFIndex.undefinedAttributes, size: 1000 + k, offset: k * 1000)
            }
            seeds.append(Array(MPFIndex(entries: entries).payload().dropFirst(4)))
        }
        // The same two-image index as Intel byte order writes it: every field reversed, the version's bytes as they are.
        var little = ByteWriter()
        func u16(_ v: UInt16) { little.append([UInt8(v & 0xFF), UInt8(v >> 8)]) }
        func u32(_ v: UInt32) { little.append([0, 8, 16, 24].map { UInt8((v >> $0) & 0xFF) }) }
        little.append([0x49, 0x49]); u16(42); u32(8); u16(3)
        u16(MPFIndex.versionTag); u16(7); u32(4); little.append(Array("0100".utf8))
        u16(MPFIndex.countTag); u16(4); u32(1); u32(2)
        u16(MPFIndex.entryTag); u16(7); u32(32); u32(50)
        u32(0)
        u32(MPFIndex.primaryAttributes); u32(5000); u32(0); u16(0); u16(0)
        u32(MPFIndex.undefinedAttributes); u32(700); u32(4900); u16(0); u16(0)
        seeds.append(little.bytes)
        return seeds
    }

    @Test func mpfIndexes() async throws {
        let campaign = MutationFuzzer("mpf-index", seeds: try Self.indexSeeds(), anchors: [0xB0], executions: 300_000, maxLength: 4096)
        let report = await campaign.run { input in
            try Seeds.attempt {
                let index = try MPFIndex(payload: input[...])
                let again = try MPFIndex(payload: index.payload().dropFirst(4))
                try FuzzFailure.check(again == index, "the index written back reads \(again.entries), not \(index.entries)")
                return "\(index.entries.count) images"
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }

    /// Whole files: portrait JPEGs with MPF depth and mattes (lossy and lossless), GDepth, extended XMP and
    /// Dynamic Depth, read as an upload is.
    @Test func photoFiles() async throws {
        let seeds = try Seeds.photoFiles().map(\.bytes)
        let dictionary: [[UInt8]] = [[0xFF, 0xD8], [0xFF, 0xD9], [0xFF, 0xE2], [0xFF, 0xC3], [0xB0, 0x01], [0xB0, 0x02]]
            + MutationFuzzer.tokens(["MPF\u{0}", "MM\u{0}*", "II*\u{0}", "http://ns.adobe.com/xap/1.0/\u{0}",
                                     "http://ns.adobe.com/xmp/extension/\u{0}", "ICC_PROFILE\u{0}", "Exif\u{0}\u{0}"])
        let campaign = MutationFuzzer("photo-files", seeds: seeds, dictionary: dictionary, executions: 60_000)
        let report = await campaign.run { input in
            try Seeds.attempt {
                let photo = try PhotoReader.read(data: input, limits: Seeds.limits)
                return "\(photo.depth == nil ? "no depth" : "depth") \(photo.mattes.count) mattes \(photo.auxiliary.count) other"
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }

    /// The whole-file seeds are what they claim: each reads as a photo with depth.
    @Test func photoSeedsHaveDepth() throws {
        for (name, bytes) in try Seeds.photoFiles() {
            let photo = try PhotoReader.read(data: bytes, limits: Seeds.limits)
            #expect(photo.depth != nil, "\(name)")
            #expect(bytes.count < 64 * 1024, "\(name) is \(bytes.count) bytes")
        }
    }
}
