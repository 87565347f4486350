/// The Multi-Picture Format index (CIPA DC-007) in a JPEG's APP2 "MPF" segment.
///
/// It lists every image of the file: the first is the primary; Apple stores depth and mattes as further
/// entries. Offsets count from the index's own TIFF header; the first entry's offset is 0.
struct MPFIndex: Equatable {
    struct Entry: Equatable {
        /// Attribute word: flags, format (0 = JPEG) and type (0x030000 primary, 0 undefined).
        var attributes: UInt32
        var size: Int
        /// Offset from the MPF TIFF header; 0 for the primary image.
        var offset: Int
    }

    var entries: [Entry]

    static let versionTag: UInt16 = 0xB000
    static let countTag: UInt16 = 0xB001
    static let entryTag: UInt16 = 0xB002
    static let primaryAttributes: UInt32 = 0x2003_0000
    static let undefinedAttributes: UInt32 = 0x0000_0000

    init(entries: [Entry]) { self.entries = entries }

    /// Parses the index from the bytes after "MPF\0" (a TIFF header and IFD).
    init(payload: ArraySlice<UInt8>) throws {
        let bytes = Array(payload)
        guard bytes.count >= 8 else { throw PhotoError.truncated("the MPF index is shorter than its header") }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: throw PhotoError.badMetadata("the MPF index has no byte-order mark")
        }
        let r = ByteReader(bytes, bigEndian: bigEndian, what: "the MPF index")
        guard try r.u16(2) == 42 else { throw PhotoError.badMetadata("the MPF index has a bad TIFF header") }
        let ifd = Int(try r.u32(4))
        let count = Int(try r.u16(ifd))
        var imageCount = 0
        var entryBytes: (offset: Int, length: Int)?
        for k in 0..<count {
            let e = ifd + 2 + k * 12
            let tag = try r.u16(e)
            let length = Int(try r.u32(e + 4))
            switch tag {
            case MPFIndex.countTag: imageCount = Int(try r.u32(e + 8))
            case MPFIndex.entryTag: entryBytes = (length <= 4 ? e + 8 : Int(try r.u32(e + 8)), length)
            default: break
            }
        }
        guard let entryBytes, imageCount > 0 else { throw PhotoError.badMetadata("the MPF index lists no images") }
        guard imageCount <= 64, entryBytes.length >= imageCount * 16 else {
            throw PhotoError.badMetadata("the MPF index claims \(imageCount) images in \(entryBytes.length) bytes")
        }
        var list: [Entry] = []
        for k in 0..<imageCount {
            let o = entryBytes.offset + k * 16
            list.append(Entry(attributes: try r.u32(o), size: Int(try r.u32(o + 4)), offset: Int(try r.u32(o + 8))))
        }
        entries = list
    }

    /// The index as an APP2 payload ("MPF\0" + big-endian TIFF + IFD + entries).
    func payload() -> [UInt8] {
        var w = ByteWriter()
        w.append(Array("MPF".utf8) + [0])
        w.append([0x4D, 0x4D, 0x00, 0x2A])
        w.u32(8)  // IFD right after the TIFF header
        let fields: UInt16 = 3
        w.u16(fields)
        let entriesOffset = 8 + 2 + Int(fields) * 12 + 4
        // MPFVersion "0100"
        w.u16(MPFIndex.versionTag); w.u16(7); w.u32(4); w.append(Array("0100".utf8))
        // NumberOfImages
        w.u16(MPFIndex.countTag); w.u16(4); w.u32(1); w.u32(UInt32(entries.count))
        // MPEntry
        w.u16(MPFIndex.entryTag); w.u16(7); w.u32(UInt32(entries.count * 16)); w.u32(UInt32(entriesOffset))
        w.u32(0)  // no next IFD
        for e in entries {
            w.u32(e.attributes); w.u32(UInt32(e.size)); w.u32(UInt32(e.offset)); w.u16(0); w.u16(0)
        }
        return w.bytes
    }

    /// The byte count of `payload()` for `count` images (needed before offsets are known).
    static func payloadSize(imageCount count: Int) -> Int { 4 + 8 + 2 + 3 * 12 + 4 + count * 16 }
}
