import DepthbookProtocol

/// How deeply the arrays and objects of a JSON text nest, found by one pass over its bytes (strings and their
/// escapes skipped), so a message can be refused before a decoder spends time super-linear in its depth.
public enum JSONNesting {
    /// The deepest nesting of `[` and `{` in `bytes`, stopping early once it passes `limit`.
    public static func depth(_ bytes: some Collection<UInt8>, stoppingAbove limit: Int = .max) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The value of the top-level member `name` of a JSON object when it is a plain positive integer (`{"id": 7,
    /// …}`), read without decoding: a message too deep to decode still gets its reply under its id (a client
    /// waiting on the id would otherwise wait for ever). Nil when absent or anything else.
    public static func topLevelInteger(_ name: String, in bytes: [UInt8]) -> Int? {
        let key = Array(name.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        func skipSpaces(_ k: inout Int) {
            while k < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[k]) { k += 1 }
        }
        var depth = 0, i = 0
        while i < bytes.count {
            switch bytes[i] {
            case quote:
                let start = i + 1
                var end = start, escaped = false
                while end < bytes.count {
                    if escaped { escaped = false } else if bytes[end] == backslash { escaped = true } else if bytes[end] == quote { break }
                    end += 1
                }
                if depth == 1, bytes[start..<min(end, bytes.count)].elementsEqual(key) {
                    var k = end + 1
                    skipSpaces(&k)
                    if k < bytes.count, bytes[k] == UInt8(ascii: ":") {
                        k += 1
                        skipSpaces(&k)
                        var value = 0, digits = 0
                        while k < bytes.count, (0x30...0x39).contains(bytes[k]), digits < 16 {
                            value = value * 10 + Int(bytes[k] - 0x30)
                            digits += 1
                            k += 1
                        }
                        let ends = k == bytes.count || ![UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[k])
                            && !(0x30...0x39).contains(bytes[k])
                        return digits > 0 && ends && value > 0 ? value : nil
                    }
                }
                i = end + 1
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
            i += 1
        }
        return nil
    }

    /// Whether `bytes` nests no deeper than the notebook limits allow.
    public static func isWithinLimit(_ bytes: some Collection<UInt8>) -> Bool {
        depth(bytes, stoppingAbove: Limits.studio.notebook.maxJSONNesting) <= Limits.studio.notebook.maxJSONNesting
    }
}
