/// The byte-level mutations of `MutationFuzzer`: cheap edits that reach the places hand-written parsers go wrong
/// (length fields, offsets, counts, cut-off data, repeated or missing parts, tokens of the format).
///
/// Every choice comes from one `SplitMix64`, so a campaign's seed fixes every input it makes.
struct Mutator {
    var rng: SplitMix64
    /// Tokens of the input's format (markers, tags, keywords) inserted or written over the input.
    let dictionary: [[UInt8]]
    /// Bytes where structure starts (0xFF before a JPEG marker, `<` in XML): a third of the edits land just after one.
    let anchors: Set<UInt8>
    let maxLength: Int

    static let interesting8: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x20, 0x40, 0x10]
    static let interesting16: [UInt16] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF]
    static let interesting32: [UInt32] = [0, 1, 0xFF, 0xFFFF, 0x10000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]
    /// Numbers as text, written over a run of digits in text formats (XML, JSON, formulas).
    static let interestingNumbers: [[UInt8]] = [
        "0", "-0", "1", "-1", "0.5", "255", "65535", "4294967295", "9223372036854775807", "99999999999999999999",
        "1e308", "-1e308", "1e999", "1e-323", "2.5e-322", "3.4028235e38", "NaN", "inf", "-inf", "1.", ".5", "1e", "0x10",
    ].map { Array($0.utf8) }

    init(seed: UInt64, dictionary: [[UInt8]], anchors: Set<UInt8>, maxLength: Int) {
        rng = SplitMix64(seed: seed)
        self.dictionary = dictionary.filter { !$0.isEmpty }
        self.anchors = anchors
        self.maxLength = maxLength
    }

    /// A number in 0..<n (n > 0).
    mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    /// A length of 1...limit, short lengths far likelier than long ones.
    mutating func length(upTo limit: Int) -> Int {
        guard limit > 1 else { return 1 }
        var n = 1
        while n < limit, below(3) != 0 { n = min(limit, n * 2 + below(2)) }
        return 1 + below(n)
    }

    /// An offset in 0..<count (count > 0): uniform, in the first kilobyte (headers), or just after an anchor byte.
    mutating func position(_ data: [UInt8]) -> Int {
        switch below(5) {
        case 0, 1: return below(data.count)
        case 2, 3: return below(min(data.count, 1024))
        default:
            guard !anchors.isEmpty else { return below(data.count) }
            let start = below(data.count)
            var k = start
            repeat {
                if anchors.contains(data[k]) { return min(data.count - 1, k + below(4)) }
                k = (k + 1) % data.count
            } while k != start
            return start
        }
    }

    /// `input` changed by one to eight stacked edits, some drawing on `other` (another input of the corpus).
    mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var data = input
        var edits = 1
        while edits < 8, below(2) == 0 { edits += 1 }
        for _ in 0..<edits { edit(&data, other: other) }
        if data.count > maxLength { data.removeLast(data.count - maxLength) }
        return data
    }

    private mutating func edit(_ data: inout [UInt8], other: [UInt8]) {
        if data.isEmpty {
            data = below(2) == 0 || other.isEmpty ? [UInt8(truncatingIfNeeded: rng.next())] : other
            return
        }
        switch below(17) {
        case 0:  // one bit flipped
            data[position(data)] ^= 1 << UInt8(below(8))
        case 1:  // one byte set at random
            data[position(data)] = UInt8(truncatingIfNeeded: rng.next())
        case 2:  // one byte set to an edge value
            data[position(data)] = Self.interesting8[below(Self.interesting8.count)]
        case 3:  // a 16-bit field (a JPEG segment length, a TIFF count) set to an edge value, either byte order
            write(&data, UInt64(Self.interesting16[below(Self.interesting16.count)]), bytes: 2)
        case 4:  // a 32-bit field (an offset, a size) set to an edge value
            write(&data, UInt64(Self.interesting32[below(Self.interesting32.count)]), bytes: 4)
        case 5:  // a byte nudged
            let p = position(data)
            data[p] = data[p] &+ UInt8(truncatingIfNeeded: below(33) - 16)
        case 6:  // a 16-bit length bumped by a little, either byte order
            bump(&data)
        case 7:  // a range deleted
            let p = position(data)
            data.removeSubrange(p..<min(data.count, p + length(upTo: 256)))
        case 8:  // random bytes inserted, or one byte repeated
            let p = below(data.count + 1)
            let n = length(upTo: 128)
            let run: [UInt8] = below(2) == 0 ? (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                : [UInt8](repeating: data[min(p, data.count - 1)], count: n)
            data.insert(contentsOf: run, at: p)
        case 9:  // a range duplicated in place or elsewhere
            let p = position(data)
            let chunk = data[p..<min(data.count, p + length(upTo: 512))]
            data.insert(contentsOf: chunk, at: below(2) == 0 ? chunk.endIndex : below(data.count + 1))
        case 10:  // a range copied over another
            let from = position(data), to = position(data)
            let n = min(length(upTo: 256), data.count - from, data.count - to)
            let chunk = Array(data[from..<(from + n)])
            data.replaceSubrange(to..<(to + n), with: chunk)
        case 11:  // spliced with another input: this one's head, the other's tail (or a piece of it inserted)
            guard !other.isEmpty else { return bump(&data) }
            let cut = below(data.count + 1), from = below(other.count)
            if below(2) == 0 {
                data = Array(data[..<cut]) + other[from...]
            } else {
                data.insert(contentsOf: other[from..<min(other.count, from + length(upTo: 1024))], at: cut)
            }
        case 12, 13:  // a token of the format inserted or written over the input
            guard !dictionary.isEmpty else { return bump(&data) }
            let token = dictionary[below(dictionary.count)]
            let p = below(2) == 0 ? position(data) : below(data.count + 1)
            if below(2) == 0 || p == data.count {
                data.insert(contentsOf: token, at: p)
            } else {
                data.replaceSubrange(p..<min(data.count, p + token.count), with: token)
            }
        case 14:  // cut short
            data.removeLast(data.count - below(data.count))
        case 15:  // a number written as text replaced by an edge value
            replaceNumber(&data)
        default:  // two ranges swapped
            let a = position(data), b = position(data)
            let (lo, hi) = (min(a, b), max(a, b))
            let n = min(length(upTo: 64), hi - lo, data.count - hi)
            guard n > 0 else { return bump(&data) }
            let first = Array(data[lo..<(lo + n)]), second = Array(data[hi..<(hi + n)])
            data.replaceSubrange(hi..<(hi + n), with: first)
            data.replaceSubrange(lo..<(lo + n), with: second)
        }
    }

    /// Writes `value` as a `bytes`-wide integer at a random offset, big- or little-endian.
    private mutating func write(_ data: inout [UInt8], _ value: UInt64, bytes: Int) {
        guard data.count >= bytes else { return }
        let p = min(position(data), data.count - bytes)
        let bigEndian = below(2) == 0
        for k in 0..<bytes {
            let shift = UInt64(8 * (bigEndian ? bytes - 1 - k : k))
            data[p + k] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    /// Adds -16...16 (not 0) to a 16-bit field, big- or little-endian: lengths one short or one long.
    private mutating func bump(_ data: inout [UInt8]) {
        guard data.count >= 2 else { return }
        let p = min(position(data), data.count - 2)
        let bigEndian = below(2) == 0
        let (hi, lo) = bigEndian ? (p, p + 1) : (p + 1, p)
        let old = UInt16(data[hi]) << 8 | UInt16(data[lo])
        var delta = below(32) - 16
        if delta >= 0 { delta += 1 }
        let new = old &+ UInt16(truncatingIfNeeded: delta)
        data[hi] = UInt8(new >> 8)
        data[lo] = UInt8(new & 0xFF)
    }

    /// Replaces the run of ASCII digits (with its sign, point and exponent) around a random offset with one of
    /// `interestingNumbers`; inserts one when the input has no digit after that offset.
    private mutating func replaceNumber(_ data: inout [UInt8]) {
        func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
        func isNumberByte(_ b: UInt8) -> Bool { isDigit(b) || b == 0x2E || b == 0x2D || b == 0x2B || b == 0x65 || b == 0x45 }
        let number = Self.interestingNumbers[below(Self.interestingNumbers.count)]
        guard var start = data[below(data.count)...].firstIndex(where: isDigit) else {
            data.insert(contentsOf: number, at: below(data.count + 1))
            return
        }
        while start > 0, isNumberByte(data[start - 1]) { start -= 1 }
        var end = start
        while end < data.count, isNumberByte(data[end]) { end += 1 }
        data.replaceSubrange(start..<end, with: number)
    }
}
