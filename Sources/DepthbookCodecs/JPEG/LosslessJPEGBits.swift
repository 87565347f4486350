// The lossless JPEG decoder's reading parts (LosslessJPEGDecoder.swift): marker segments, Huffman codes, bits.

/// Walks a JPEG's marker segments: each `nextSegment` returns a marker and its payload range.
struct MarkerWalker {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func expectStart() throws {
        guard !bytes.isEmpty else { throw PhotoError.empty }
        guard bytes.count >= 4 else { throw PhotoError.truncated("the JPEG header is incomplete") }
        guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw PhotoError.unsupportedFormat("no JPEG start marker") }
        position = 2
    }

    /// The next marker and its payload (empty for markers without one), or nil at the end of the bytes.
    mutating func nextSegment() throws -> (UInt8, Range<Int>)? {
        guard position < bytes.count else { return nil }
        guard bytes[position] == 0xFF else { throw PhotoError.corrupt("expected a JPEG marker at byte \(position)") }
        while position < bytes.count, bytes[position] == 0xFF { position += 1 }
        guard position < bytes.count else { throw PhotoError.truncated("the JPEG ends inside a marker") }
        let marker = bytes[position]
        position += 1
        if marker == 0xD8 || marker == 0xD9 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
            return (marker, position..<position)
        }
        guard marker != 0x00 else { throw PhotoError.corrupt("a JPEG marker is 0xFF00") }
        guard position + 2 <= bytes.count else { throw PhotoError.truncated("the JPEG ends inside a segment header") }
        let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
        guard length >= 2 else { throw PhotoError.corrupt("a JPEG segment has length \(length)") }
        guard position + length <= bytes.count else { throw PhotoError.truncated("a JPEG segment runs past the end of the data") }
        let payload = (position + 2)..<(position + length)
        position += length
        return (marker, payload)
    }
}

/// A Huffman table as a lookup on the next 16 bits: (code length << 8) | value, or 0 where no code starts.
struct HuffmanLookup {
    var entries: [UInt16]

    init(counts: ArraySlice<UInt8>, values: ArraySlice<UInt8>, what: String) throws {
        entries = [UInt16](repeating: 0, count: 1 << 16)
        var code = 0
        var k = values.startIndex
        for (index, count) in counts.enumerated() {
            let length = index + 1
            for _ in 0..<Int(count) {
                // A code that no longer fits in `length` bits means the counts claim more codes than exist.
                guard code < (1 << length) else { throw PhotoError.corrupt("\(what) has a Huffman table with too many codes") }
                let value = values[k]
                guard value <= 16 else { throw PhotoError.corrupt("\(what) has a Huffman table with difference category \(value)") }
                let first = code << (16 - length), span = 1 << (16 - length)
                let entry = UInt16(length << 8) | UInt16(value)
                for i in first..<(first + span) { entries[i] = entry }
                code += 1
                k += 1
            }
            code <<= 1
        }
    }
}

/// Reads the entropy-coded bits of one scan: byte stuffing removed, stopping at the next marker.
///
/// Past the last real byte the reader supplies padding bits so that a 16-bit look-ahead always works, and
/// counts them: consuming one of those means the data stopped early.
struct BitReader {
    let bytes: [UInt8]
    /// The next byte to load.
    var position: Int
    var buffer: UInt64 = 0
    var bitCount = 0
    /// How many of the low bits in `buffer` are padding, not data.
    var paddingBits = 0
    /// Set once a marker (0xFF not followed by 0x00) or the end of the bytes is reached; `position` then
    /// points at the marker's 0xFF (or at the end).
    var atMarker = false
    let what: String

    init(bytes: [UInt8], position: Int, what: String) {
        self.bytes = bytes
        self.position = position
        self.what = what
    }

    private mutating func fill() {
        while bitCount <= 48 {
            var byte: UInt64 = 0xFF  // padding: ones, as an encoder pads the last byte
            if !atMarker, position < bytes.count {
                let b = bytes[position]
                if b != 0xFF {
                    byte = UInt64(b)
                    position += 1
                } else if position + 1 < bytes.count, bytes[position + 1] == 0x00 {
                    byte = 0xFF
                    position += 2
                } else {
                    atMarker = true
                    paddingBits += 8
                }
            } else {
                atMarker = true
                paddingBits += 8
            }
            buffer |= byte << UInt64(56 - bitCount)
            bitCount += 8
        }
    }

    /// The next 16 bits, without consuming them.
    mutating func peek16() -> Int {
        if bitCount < 16 { fill() }
        return Int(buffer >> 48)
    }

    /// Consumes `n` bits (at most 16) already looked at.
    mutating func skip(_ n: Int) throws {
        buffer <<= UInt64(n)
        bitCount -= n
        if bitCount < paddingBits { throw PhotoError.truncated("\(what): the compressed data stops early") }
    }

    /// Whether fewer than 16 real bits remain before the marker or the end (a look-ahead includes padding).
    var isExhausted: Bool { atMarker && bitCount - paddingBits < 16 }

    /// Reads `n` bits (1...16) as an unsigned number.
    mutating func bits(_ n: Int) throws -> Int {
        let v = peek16() >> (16 - n)
        try skip(n)
        return v
    }

    /// Drops the bits left in the current byte and moves past the restart marker that must follow (any of
    /// RST0...RST7: a wrong number is tolerated, as libjpeg does, since the samples do not depend on it).
    mutating func restart(expected: Int) throws {
        buffer = 0
        bitCount = 0
        paddingBits = 0
        atMarker = false
        // Bytes still unread before the marker would be data the interval did not use: skip them, as
        // libjpeg does, but never beyond the next marker.
        while position < bytes.count {
            if bytes[position] == 0xFF, position + 1 < bytes.count, bytes[position + 1] != 0x00 { break }
            position += bytes[position] == 0xFF ? 2 : 1
        }
        while position < bytes.count, bytes[position] == 0xFF { position += 1 }
        guard position < bytes.count else { throw PhotoError.truncated("\(what): the compressed data stops at a restart") }
        let marker = bytes[position]
        guard (0xD0...0xD7).contains(marker) else {
            throw PhotoError.corrupt("\(what): expected restart marker \(expected % 8) but found marker 0x\(LosslessJPEGDecoder.hex(marker))")
        }
        position += 1
    }

    /// Where the bytes after this scan start: the marker that ended it, or the end of the data.
    var endOfScan: Int {
        var p = position
        // Whole bytes may remain unread in the buffer; they precede the marker, so search from here.
        while p < bytes.count {
            if bytes[p] == 0xFF, p + 1 < bytes.count, bytes[p + 1] != 0x00 { return p }
            p += bytes[p] == 0xFF ? 2 : 1
        }
        return bytes.count
    }
}
