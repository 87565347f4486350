import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Mutated JPEG streams through the marker walk and what is read from its segments (EXIF orientation, XMP, the
/// MPF index, the ICC profile's name, extended XMP): each returns or throws a `PhotoError`, and every segment it
/// lists lies inside the stream.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct JPEGStructureFuzzTests {
    typealias Seeds = CodecFuzzSeeds

    static func seeds() throws -> [[UInt8]] {
        let grey = try Seeds.greyJPEG(12, 8)
        let withICC = try JPEGSegmentInserter.insert(
            try Seeds.exifSegment(orientation: .left) + JPEGSegmentInserter.iccSegments(Seeds.iccProfile(description: "sRGB", mluc: true)),
            into: try JPEGEncoder.encode(Seeds.image(16, 16), quality: 50))
        return try Seeds.photoFiles().map(\.bytes) + [grey, withICC] + Seeds.losslessReferences().prefix(3)
    }

    @Test func jpegStructures() async throws {
        let dictionary: [[UInt8]] = [
            [0xFF, 0xD8], [0xFF, 0xD9], [0xFF, 0xDA], [0xFF, 0xC0], [0xFF, 0xC2], [0xFF, 0xC3], [0xFF, 0xC4], [0xFF, 0xDD], [0xFF, 0xE1],
            [0xFF, 0xE2], [0xFF, 0xFF], [0xFF, 0x00], [0xFF, 0x01], [0xFF, 0xD0], [0x01, 0x12], [0x00, 0x03], [0x00, 0x00, 0x00, 0x08],
        ] + MutationFuzzer.tokens(["Exif\u{0}\u{0}", "MM\u{0}*", "II*\u{0}", "MPF\u{0}", "ICC_PROFILE\u{0}", "desc", "mluc",
                                   "http://ns.adobe.com/xap/1.0/\u{0}", "http://ns.adobe.com/xmp/extension/\u{0}", Seeds.extendedGUID])
        let campaign = MutationFuzzer("jpeg-structure", seeds: try Self.seeds(), dictionary: dictionary, executions: 300_000)
        let report = await campaign.run { input in
            try Seeds.attempt {
                let structure = try JPEGStructure(input)
                try Self.checkSegments(structure, input)
                var outcome = "\(structure.segments.count) segments, frame \(structure.frameMarker)"
                if let exif = structure.exif {
                    let upright = exif.withUprightOrientation()
                    try FuzzFailure.check(upright.bytes.count == exif.bytes.count, "turning EXIF upright changed its length")
                    if exif.orientation != nil {
                        try FuzzFailure.check(upright.orientation == .up, "EXIF turned upright reads \(String(describing: upright.orientation))")
                    }
                    outcome += "; exif \(exif.orientation?.rawValue ?? 0)"
                }
                outcome += structure.xmp == nil ? "" : "; xmp"
                if let mpf = structure.mpf {
                    try FuzzFailure.check(mpf.tiffOffset <= input.count, "the MPF header lies past the stream")
                    outcome += "; mpf " + (try Seeds.attempt { "\(try MPFIndex(payload: mpf.payload).entries.count)" })
                }
                outcome += "; icc \(ICCProfile.colorSpaceName(structure.iccProfile).prefix(12))"
                outcome += "; extended " + (try Seeds.attempt {
                    try structure.extendedXMP(guid: Seeds.extendedGUID, limits: Seeds.limits).map { "\($0.utf8.count > 0)" } ?? "-"
                })
                outcome += "; lossless " + (try Seeds.attempt { "\(try LosslessJPEGDecoder.frameMarker(input) ?? 0)" })
                return outcome
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }

    /// Segments in order, each payload inside the stream after its marker and length, and a frame header read.
    static func checkSegments(_ structure: JPEGStructure, _ input: [UInt8]) throws {
        var end = 2
        for segment in structure.segments {
            try FuzzFailure.check(segment.payload.lowerBound >= end + 4 && segment.payload.upperBound <= input.count,
                                  "segment 0x\(String(segment.marker, radix: 16)) at \(segment.payload) of \(input.count) bytes")
            end = segment.payload.upperBound
        }
        try FuzzFailure.check(structure.width > 0 && structure.height > 0, "a JPEG of \(structure.width)×\(structure.height)")
    }
}
