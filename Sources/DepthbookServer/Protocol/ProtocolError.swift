/// A failed request as the page sees it: a code from `docs/protocol.md` and a message saying what to change.
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

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func badRequest(_ message: String) -> ProtocolError { ProtocolError(.badRequest, message) }
    public static func notFound(_ message: String) -> ProtocolError { ProtocolError(.notFound, message) }
    public static func forbidden(_ message: String) -> ProtocolError { ProtocolError(.forbidden, message) }
}
