/// A failed request as the page sees it: a code from `docs/protocol.md`, a message saying what to change, and
/// for a refused parameter change the cell and parameter it names (so a client never parses the message).
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable {
        case badRequest = "bad_request"
        case unknownType = "unknown_type"
        case notFound = "not_found"
        case unsupported
        case tooLarge = "too_large"
        case forbidden
        case `internal`
    }

    public var code: Code
    public var message: String
    /// The cell whose change was refused, when the refusal is about one cell's parameters.
    public var cell: String?
    /// The parameter refused (unknown, or a value outside what it accepts), when one is to blame.
    public var parameter: String?

    public init(_ code: Code, _ message: String, cell: String? = nil, parameter: String? = nil) {
        self.code = code
        self.message = message
        self.cell = cell
        self.parameter = parameter
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func badRequest(_ message: String) -> ProtocolError { ProtocolError(.badRequest, message) }
    public static func notFound(_ message: String) -> ProtocolError { ProtocolError(.notFound, message) }
    public static func forbidden(_ message: String) -> ProtocolError { ProtocolError(.forbidden, message) }
}
