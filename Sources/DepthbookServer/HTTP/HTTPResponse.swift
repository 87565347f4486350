import Foundation

/// A complete HTTP response the transport writes: the server builds every body in memory (pages, exports
/// and JSON are all small enough), so one writer serves them all.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String, headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.contentType == b.contentType && a.body == b.body
            && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
    }

    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", headers: [("cache-control", "no-store")],
                     body: Array(text.utf8))
    }

    /// `{"error": {"message": ...}}`, as uploads and other API calls report failures.
    public static func jsonError(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, ["error": ["message": message]])
    }

    public static func json(_ status: Int, _ object: some Encodable) -> HTTPResponse {
        let body = (try? ReplyEncoder.encoder().encode(object)).map(Array.init) ?? Array("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json", headers: [("cache-control", "no-store")], body: body)
    }
}
