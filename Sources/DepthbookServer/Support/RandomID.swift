/// Identifiers nobody can guess: 128 bits from the system's secure generator, as 32 hexadecimal digits.
/// Session ids, resume keys, share ids and export names are made here; content hashes stay internal.
enum RandomID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
