/// Builds JPEG marker segments and splices them into a stream libjpeg-turbo produced.
enum JPEGSegmentInserter {
    /// The largest payload one marker segment can carry (the length field counts itself).
    static let maxPayload = 65_533

    /// One APPn segment: marker, big-endian length, payload.
    static func segment(app n: UInt8, payload: [UInt8]) throws -> [UInt8] {
        guard payload.count <= maxPayload else {
            throw PhotoError.encodingFailed("a metadata block of \(payload.count) bytes exceeds one JPEG segment (\(maxPayload) bytes)")
        }
        let length = payload.count + 2
        return [0xFF, 0xE0 + n, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// An XMP packet as an APP1 segment.
    static func xmpSegment(_ xmp: String) throws -> [UInt8] {
        try segment(app: 1, payload: JPEGStructure.xmpSignature + Array(xmp.utf8))
    }

    /// An ICC profile as numbered APP2 "ICC_PROFILE" chunks.
    static func iccSegments(_ profile: [UInt8]) throws -> [UInt8] {
        let chunkSize = maxPayload - JPEGStructure.iccSignature.count - 2
        let chunks = stride(from: 0, to: profile.count, by: chunkSize).map { Array(profile[$0..<min($0 + chunkSize, profile.count)]) }
        guard chunks.count < 256 else { throw PhotoError.encodingFailed("the ICC profile is too large for a JPEG") }
        var out: [UInt8] = []
        for (k, chunk) in chunks.enumerated() {
            out += try segment(app: 2, payload: JPEGStructure.iccSignature + [UInt8(k + 1), UInt8(chunks.count)] + chunk)
        }
        return out
    }

    /// `jpeg` with `segments` placed after SOI and any leading APP0 (JFIF) segment, as EXIF expects.
    static func insert(_ segments: [UInt8], into jpeg: [UInt8]) throws -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw PhotoError.encodingFailed("the encoder produced no JPEG") }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 {
            at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        }
        guard at <= jpeg.count else { throw PhotoError.encodingFailed("the encoder produced a malformed JPEG") }
        var out = [UInt8]()
        out.reserveCapacity(jpeg.count + segments.count)
        out += jpeg[..<at]
        out += segments
        out += jpeg[at...]
        return out
    }
}
