import DepthbookEngine

/// A raw EXIF block ("Exif\0\0" + TIFF), read for its orientation and rewritten when planes are turned upright.
///
/// Depthbook keeps EXIF bytes as they are; it only needs the orientation tag (0x0112 in IFD0). Writing a
/// photo whose pixels are already upright sets that tag to 1 in place, leaving every other byte alone.
struct ExifBlock: Sendable {
    /// The bytes as a JPEG APP1 segment carries them: "Exif\0\0" then the TIFF header.
    var bytes: [UInt8]

    static let header: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let orientationTag: UInt16 = 0x0112

    /// Wraps a JPEG APP1 payload (starting with "Exif\0\0").
    init?(app1Payload: ArraySlice<UInt8>) {
        guard app1Payload.starts(with: ExifBlock.header) else { return nil }
        bytes = Array(app1Payload)
    }

    /// Wraps libheif's Exif metadata: a 4-byte big-endian offset to the TIFF header, then the data.
    init?(heifPayload: [UInt8]) {
        guard heifPayload.count >= 12 else { return nil }
        let skip = Int(UInt32(heifPayload[0]) << 24 | UInt32(heifPayload[1]) << 16 | UInt32(heifPayload[2]) << 8 | UInt32(heifPayload[3]))
        let tiffStart = 4 + skip
        guard skip >= 0, tiffStart < heifPayload.count - 8 else { return nil }
        bytes = ExifBlock.header + heifPayload[tiffStart...]
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Where the orientation entry's value sits and in which byte order; nil when there is none.
    private func orientationValueOffset() -> (offset: Int, bigEndian: Bool)? {
        let tiff = ExifBlock.header.count
        guard bytes.count >= tiff + 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        let r = ByteReader(bytes, base: tiff, bigEndian: bigEndian, what: "EXIF")
        guard let magic = try? r.u16(2), magic == 42, let ifd0 = try? r.u32(4), let count = try? r.u16(Int(ifd0)) else { return nil }
        for k in 0..<Int(count) {
            let entry = Int(ifd0) + 2 + k * 12
            guard let tag = try? r.u16(entry) else { return nil }
            if tag == ExifBlock.orientationTag {
                guard let type = try? r.u16(entry + 2), type == 3 else { return nil }
                return (tiff + entry + 8, bigEndian)
            }
        }
        return nil
    }

    /// The EXIF orientation, or nil when absent or out of range.
    var orientation: Orientation? {
        guard let (offset, bigEndian) = orientationValueOffset(), offset + 1 < bytes.count else { return nil }
        let raw = bigEndian ? Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) : Int(bytes[offset + 1]) << 8 | Int(bytes[offset])
        return Orientation(rawValue: raw)
    }

    /// The same block with orientation set to `.up` (when it has an orientation tag).
    func withUprightOrientation() -> ExifBlock {
        guard let (offset, bigEndian) = orientationValueOffset(), offset + 1 < bytes.count else { return self }
        var copy = self
        copy.bytes[offset] = bigEndian ? 0 : 1
        copy.bytes[offset + 1] = bigEndian ? 1 : 0
        return copy
    }
}
