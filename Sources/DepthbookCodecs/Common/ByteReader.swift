/// Bounds-checked reads of big- and little-endian integers from a byte array.
///
/// Every structure Depthbook parses by hand (JPEG markers, TIFF/EXIF, MPF) goes through this, so an
/// offset pointing outside the file becomes a `PhotoError.truncated` instead of a crash.
struct ByteReader {
    let bytes: [UInt8]
    /// Offsets are relative to `base` (a TIFF header's start, say).
    let base: Int
    var bigEndian: Bool
    /// Names the structure in error messages.
    let what: String

    init(_ bytes: [UInt8], base: Int = 0, bigEndian: Bool = true, what: String) {
        self.bytes = bytes
        self.base = base
        self.bigEndian = bigEndian
        self.what = what
    }

    private func position(_ offset: Int, _ size: Int) throws -> Int {
        let p = base + offset
        guard offset >= 0, p >= 0, p <= bytes.count - size else {
            throw PhotoError.truncated("\(what) points past the end of the data")
        }
        return p
    }

    func u8(_ offset: Int) throws -> UInt8 { bytes[try position(offset, 1)] }

    func u16(_ offset: Int) throws -> UInt16 {
        let p = try position(offset, 2)
        let a = UInt16(bytes[p]), b = UInt16(bytes[p + 1])
        return bigEndian ? (a << 8 | b) : (b << 8 | a)
    }

    func u32(_ offset: Int) throws -> UInt32 {
        let p = try position(offset, 4)
        let a = UInt32(bytes[p]), b = UInt32(bytes[p + 1]), c = UInt32(bytes[p + 2]), d = UInt32(bytes[p + 3])
        return bigEndian ? (a << 24 | b << 16 | c << 8 | d) : (d << 24 | c << 16 | b << 8 | a)
    }

    /// `count` bytes starting at `offset`.
    func slice(_ offset: Int, count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0 else { throw PhotoError.corrupt("\(what) has a negative length") }
        let p = try position(offset, count)
        return bytes[p..<(p + count)]
    }
}

/// Appends big-endian integers, for the structures Depthbook writes (MPF, TIFF, JPEG segments).
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    mutating func u32(_ v: UInt32) {
        bytes.append(UInt8(v >> 24)); bytes.append(UInt8((v >> 16) & 0xFF))
        bytes.append(UInt8((v >> 8) & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }
    mutating func append<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
}
