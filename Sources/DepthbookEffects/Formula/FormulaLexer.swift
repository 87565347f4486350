import DepthbookDocument

/// One token of a formula and the offset it starts at.
struct FormulaToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Double)
        case name(String)
        case symbol(Symbol)
        case end
    }

    enum Symbol: String, Sendable, CaseIterable {
        case plus = "+", minus = "-", star = "*", slash = "/", caret = "^"
        case less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">=", equal = "==", notEqual = "!="
        case question = "?", colon = ":", comma = ",", open = "(", close = ")"
        case dot = ".", range = "..", assign = "=", dollar = "$"
    }

    let kind: Kind
    let position: Int

    /// The token as the user wrote it, for messages.
    var shown: String {
        switch kind {
        case .number(let n): return "“\(EffectParameter.shown(n))”"
        case .name(let s): return "“\(s)”"
        case .symbol(let s): return "“\(s.rawValue)”"
        case .end: return "the end of the formula"
        }
    }
}

/// Splits a formula into tokens. Only ASCII is accepted: the first other character is an error at its offset.
enum FormulaLexer {
    static func tokens(_ text: String) throws(FormulaError) -> [FormulaToken] {
        let bytes = Array(text.utf8)
        var tokens = [FormulaToken]()
        var i = 0
        func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
        func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F }
        func at(_ k: Int) -> UInt8 { k < bytes.count ? bytes[k] : 0 }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                i += 1
                continue
            }
            let start = i
            if isDigit(b) || (b == 0x2E && isDigit(at(i + 1))) {
                while isDigit(at(i)) { i += 1 }
                if at(i) == 0x2E && isDigit(at(i + 1)) {
                    i += 1
                    while isDigit(at(i)) { i += 1 }
                }
                if at(i) == 0x65 || at(i) == 0x45 {
                    var k = i + 1
                    if at(k) == 0x2B || at(k) == 0x2D { k += 1 }
                    guard isDigit(at(k)) else {
                        throw FormulaError(position: i, message: "a number's exponent needs digits, as in 1e-3")
                    }
                    i = k
                    while isDigit(at(i)) { i += 1 }
                }
                let literal = String(decoding: bytes[start..<i], as: UTF8.self)
                guard let value = Double(literal), value <= Double(Float.greatestFiniteMagnitude) else {
                    throw FormulaError(position: start, message: "\(literal) is too large for a pixel value")
                }
                tokens.append(FormulaToken(kind: .number(value), position: start))
                if isLetter(at(i)) {
                    throw FormulaError(position: i, message: "a name cannot start with a digit, and a number cannot run into a name: "
                        + "write an operator between them, as in 2 * image")
                }
                continue
            }
            if isLetter(b) {
                while isLetter(at(i)) || isDigit(at(i)) { i += 1 }
                tokens.append(FormulaToken(kind: .name(String(decoding: bytes[start..<i], as: UTF8.self)), position: start))
                continue
            }
            let two = String(decoding: bytes[i..<min(i + 2, bytes.count)], as: UTF8.self)
            if two.utf8.count == 2, let symbol = FormulaToken.Symbol(rawValue: two) {
                tokens.append(FormulaToken(kind: .symbol(symbol), position: start))
                i += 2
                continue
            }
            if b < 0x80, let symbol = FormulaToken.Symbol(rawValue: String(UnicodeScalar(b))) {
                tokens.append(FormulaToken(kind: .symbol(symbol), position: start))
                i += 1
                continue
            }
            throw FormulaError(position: start, message: unexpected(bytes, at: start))
        }
        tokens.append(FormulaToken(kind: .end, position: bytes.count))
        return tokens
    }

    /// What to say about a character the language does not have.
    private static func unexpected(_ bytes: [UInt8], at i: Int) -> String {
        let b = bytes[i]
        switch b {
        case UInt8(ascii: "!"): return "unexpected “!”: the language has no “not”; write != for “not equal”, or 1 - x"
        case UInt8(ascii: "&"), UInt8(ascii: "|"):
            return "unexpected “\(Character(UnicodeScalar(b)))”: the language has no && or ||; multiply conditions (a * b) for “and”, use max(a, b) for “or”"
        case UInt8(ascii: "%"): return "unexpected “%”: the language has no remainder"
        case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            return "unexpected “\(Character(UnicodeScalar(b)))”: group with ( and )"
        case UInt8(ascii: ";"): return "unexpected “;”: a formula is one expression"
        default:
            if b >= 0x80 {
                let scalar = String(decoding: bytes[i...].prefix(4), as: UTF8.self).unicodeScalars.first.map { String($0) } ?? "?"
                return "unexpected character “\(scalar)”: formulas are written in plain ASCII (names, numbers, + - * / ^ < > = ? : , ( ) . $)"
            }
            return "unexpected character “\(Character(UnicodeScalar(b)))”"
        }
    }
}
