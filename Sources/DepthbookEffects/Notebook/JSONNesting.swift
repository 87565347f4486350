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

    /// Whether `bytes` nests no deeper than the notebook limits allow.
    public static func isWithinLimit(_ bytes: some Collection<UInt8>) -> Bool {
        depth(bytes, stoppingAbove: Notebook.limits.maxJSONNesting) <= Notebook.limits.maxJSONNesting
    }
}
