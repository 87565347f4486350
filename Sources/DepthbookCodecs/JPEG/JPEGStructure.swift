/// The marker segments of one JPEG stream up to its scan data: where EXIF, XMP, MPF and ICC sit.
///
/// TurboJPEG decodes pixels but ignores application segments, so Depthbook walks the markers itself to
/// find Apple's and Google's metadata. Walking stops at the first SOS; the entropy-coded data is left to
/// libjpeg-turbo.
struct JPEGStructure {
    struct Segment {
        let marker: UInt8
        /// Range of the payload (after the 2-byte length) in the stream's bytes.
        let payload: Range<Int>
    }

    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let extendedXMPSignature: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    static let mpfSignature: [UInt8] = Array("MPF".utf8) + [0]
    static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    let bytes: [UInt8]
    /// Where this stream starts in `bytes` (MPF images are streams inside one file).
    let start: Int
    private(set) var segments: [Segment] = []
    private(set) var width = 0
    private(set) var height = 0
    private(set) var components = 0
    /// The frame header's marker: 0xC0 baseline, 0xC2 progressive, 0xC3 lossless, and so on.
    private(set) var frameMarker: UInt8 = 0

    /// Parses the markers of the JPEG stream at `start`. Throws when it is not a JPEG or is cut short.
    init(_ bytes: [UInt8], start: Int = 0) throws {
        self.bytes = bytes
        self.start = start
        guard bytes.count - start >= 4 else {
            throw bytes.count == start ? PhotoError.empty : PhotoError.truncated("the JPEG header is incomplete")
        }
        guard bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { throw PhotoError.unsupportedFormat("no JPEG start marker") }
        var i = start + 2
        while true {
            // Markers may be preceded by fill bytes 0xFF.
            guard i < bytes.count else { throw PhotoError.truncated("the JPEG ends before its image data") }
            guard bytes[i] == 0xFF else { throw PhotoError.corrupt("expected a JPEG marker at byte \(i)") }
            while i < bytes.count, bytes[i] == 0xFF { i += 1 }
            guard i < bytes.count else { throw PhotoError.truncated("the JPEG ends inside a marker") }
            let marker = bytes[i]
            i += 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 { throw PhotoError.corrupt("the JPEG ends before any image data") }
            guard i + 2 <= bytes.count else { throw PhotoError.truncated("the JPEG ends inside a segment header") }
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            guard length >= 2 else { throw PhotoError.corrupt("a JPEG segment has length \(length)") }
            guard i + length <= bytes.count else { throw PhotoError.truncated("a JPEG segment runs past the end of the file") }
            let payload = (i + 2)..<(i + length)
            segments.append(Segment(marker: marker, payload: payload))
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker) {
                guard payload.count >= 6 else { throw PhotoError.corrupt("the JPEG frame header is too short") }
                height = Int(bytes[payload.lowerBound + 1]) << 8 | Int(bytes[payload.lowerBound + 2])
                width = Int(bytes[payload.lowerBound + 3]) << 8 | Int(bytes[payload.lowerBound + 4])
                components = Int(bytes[payload.lowerBound + 5])
                frameMarker = marker
            }
            i += length
            if marker == 0xDA { break }
        }
        guard width > 0, height > 0 else { throw PhotoError.corrupt("the JPEG has no frame header before its scan") }
    }

    /// Payloads of APPn segments (`n` = 0...15) that begin with `signature`, signature stripped.
    func appSegments(_ n: UInt8, signature: [UInt8]) -> [ArraySlice<UInt8>] {
        segments.compactMap { s in
            guard s.marker == 0xE0 + n else { return nil }
            let p = bytes[s.payload]
            guard p.starts(with: signature) else { return nil }
            return p.dropFirst(signature.count)
        }
    }

    /// Whether the frame is lossless (SOF3), which `LosslessJPEGDecoder` decodes instead of libjpeg-turbo.
    var isLossless: Bool { frameMarker == 0xC3 }

    /// The EXIF block, when an APP1 "Exif" segment exists.
    var exif: ExifBlock? {
        segments.lazy.filter { $0.marker == 0xE1 }.compactMap { ExifBlock(app1Payload: self.bytes[$0.payload]) }.first
    }

    /// The standard XMP packet text.
    var xmp: String? {
        appSegments(1, signature: JPEGStructure.xmpSignature).first.map { String(decoding: $0, as: UTF8.self) }
    }

    /// File offset of the MPF index's TIFF header (MPF offsets count from there), and the index bytes.
    var mpf: (tiffOffset: Int, payload: ArraySlice<UInt8>)? {
        for s in segments where s.marker == 0xE2 {
            let p = bytes[s.payload]
            if p.starts(with: JPEGStructure.mpfSignature) {
                return (s.payload.lowerBound + 4, p.dropFirst(4))
            }
        }
        return nil
    }

    /// The ICC profile, reassembled from its numbered APP2 chunks.
    var iccProfile: [UInt8]? {
        let chunks = appSegments(2, signature: JPEGStructure.iccSignature).filter { $0.count >= 2 }
        guard !chunks.isEmpty else { return nil }
        let ordered = chunks.sorted { $0[$0.startIndex] < $1[$1.startIndex] }
        return ordered.flatMap { $0.dropFirst(2) }
    }

    /// Extended XMP (Adobe's split across APP1 segments), joined for the GUID the main XMP names.
    ///
    /// Each chunk is: 32-byte GUID, 4-byte full length, 4-byte offset, data. Chunks may come in any order.
    func extendedXMP(guid: String, limits: DecodeLimits = .default) throws -> String? {
        var total = -1
        var pieces: [(Int, ArraySlice<UInt8>)] = []
        for chunk in appSegments(1, signature: JPEGStructure.extendedXMPSignature) where chunk.count >= 40 {
            let id = String(decoding: chunk.prefix(32), as: UTF8.self)
            guard id.uppercased() == guid.uppercased() else { continue }
            let r = ByteReader(Array(chunk.dropFirst(32).prefix(8)), what: "extended XMP")
            total = Int(try r.u32(0))
            pieces.append((Int(try r.u32(4)), chunk.dropFirst(40)))
        }
        guard total >= 0 else { return nil }
        // The declared length is only a claim: it must be within the limit and covered by the chunks actually
        // in the file before anything that size is allocated.
        try limits.check(metadataBytes: total, what: "the extended XMP")
        let present = pieces.reduce(0) { $0 + $1.1.count }
        guard present >= total else { throw PhotoError.truncated("extended XMP is missing \(total - present) of its \(total) bytes") }
        var out = [UInt8](repeating: 0, count: total)
        var covered = 0
        for (offset, data) in pieces {
            guard offset >= 0, offset + data.count <= total else { throw PhotoError.badMetadata("an extended XMP chunk lies outside its declared length") }
            out.replaceSubrange(offset..<(offset + data.count), with: data)
            covered += data.count
        }
        guard covered >= total else { throw PhotoError.truncated("extended XMP is missing \(total - covered) bytes") }
        return String(decoding: out, as: UTF8.self)
    }
}
