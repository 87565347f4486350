/// Why a formula was refused: where (a 0-based offset into the formula's text) and what to change.
///
/// Formulas are ASCII: the first character that is not stops the lexer with an error at its offset, so every
/// position is a count of characters before it, the same in UTF-8, UTF-16 (a JavaScript string) and
/// Unicode scalars.
public struct FormulaError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Characters before the place the message is about (the text's length for "the formula ends too soon").
    public let position: Int
    public let message: String

    public init(position: Int, message: String) {
        self.position = position
        self.message = message
    }

    public var description: String { "at offset \(position): \(message)" }
}
