import DepthbookDocument
import DepthbookEffects
import DepthbookProtocol
import Foundation

/// Builds the JSON text frames the server sends in answer: replies, exactly one per request (events are
/// `StudioEvent`s).
public enum ReplyEncoder {
    private struct OK<Result: Encodable>: Encodable {
        var id: Int
        var type = "reply"
        var ok = true
        var result: Result
    }

    private struct Failure: Encodable {
        struct Body: Encodable {
            var code: String
            var message: String
            var cell: String?
            var parameter: String?
        }
        var id: Int?
        var type = "reply"
        var ok = false
        var error: Body

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            // `"id": null` must be present, not omitted, for a message that had none.
            try c.encode(id, forKey: .id)
            try c.encode(type, forKey: .type)
            try c.encode(ok, forKey: .ok)
            try c.encode(error, forKey: .error)
        }

        enum CodingKeys: String, CodingKey { case id, type, ok, error }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    public static func ok(id: Int, result: some Encodable) -> [UInt8] {
        do {
            return Array(try encoder().encode(OK(id: id, result: result)))
        } catch {
            return failure(id: id, error: ProtocolError(.internal, "the reply could not be encoded: \(error)"))
        }
    }

    public static func failure(id: Int?, error: ProtocolError) -> [UInt8] {
        let failure = Failure(id: id, error: .init(code: error.code.rawValue, message: error.message, cell: error.cell, parameter: error.parameter))
        // Strings and an integer always encode; the fallback only keeps the signature total.
        return (try? Array(encoder().encode(failure))) ?? Array(#"{"id":null,"type":"reply","ok":false}"#.utf8)
    }

    /// Any encodable value as a `JSONValue`, to place inside an event.
    public static func jsonValue(_ value: some Encodable) -> JSONValue {
        guard let data = try? encoder().encode(value), let decoded = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return decoded
    }
}
