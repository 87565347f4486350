/// A stable 128-bit identity of a recipe node: the same filter, parameters and inputs give the same key in
/// every process (unlike `Hasher`, which is seeded per run), so it can name cache entries and be logged.
public struct NodeKey: Hashable, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    /// Hashes `text` and the input keys with two independent FNV-1a 64 streams.
    public init(_ text: String, inputs: [NodeKey]) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        func mix(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5a)) &* 0x0000_0100_0000_01b3
            b = (b << 7) | (b >> 57)
        }
        for byte in text.utf8 { mix(byte) }
        for key in inputs {
            mix(0x1f)
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: key.high >> UInt64(shift))) }
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: key.low >> UInt64(shift))) }
        }
        high = a
        low = b
    }

    public var description: String {
        let h = String(high, radix: 16), l = String(low, radix: 16)
        return String(repeating: "0", count: 16 - h.count) + h + String(repeating: "0", count: 16 - l.count) + l
    }
}
