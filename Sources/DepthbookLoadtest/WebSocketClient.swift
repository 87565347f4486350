/// A WebSocket client for the load test and the transport tests: libwebsockets' client role (ws:// and
/// wss://, the Origin a browser would send), behind blocking send and receive calls.
public final class WebSocketClient: @unchecked Sendable {
    public enum Message: Sendable {
        case text(String)
        case binary([UInt8])
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    private let connection: LWSClientConnection

    /// Connects and upgrades; `timeoutSeconds` bounds every later receive.
    public init(endpoint: Endpoint, path: String, origin: String? = nil, timeoutSeconds: Int = 30) throws {
        do {
            connection = try LWSClientConnection(endpoint: endpoint, path: path, request: .webSocket(origin: origin),
                                                 timeoutSeconds: timeoutSeconds)
        } catch let error as LWSClientConnection.Failure {
            throw Failure("the WebSocket upgrade failed: \(error.description)")
        }
    }

    /// A plain `ws://` connection.
    public convenience init(host: String, port: Int, path: String, timeoutSeconds: Int = 30) throws {
        try self.init(endpoint: Endpoint(host: host, port: port), path: path, timeoutSeconds: timeoutSeconds)
    }

    /// Sends one text message.
    public func send(text: String) throws {
        do { try connection.send(text) } catch let error as LWSClientConnection.Failure { throw Failure(error.description) }
    }

    /// The next complete message; throws on close, error or timeout.
    public func receive() throws -> Message {
        do { return try connection.receive() } catch let error as LWSClientConnection.Failure { throw Failure(error.description) }
    }

    /// Closes the connection (a close frame, then the socket).
    public func shutdown() {
        connection.close()
    }
}

/// One HTTP/1.1 request over a fresh connection through libwebsockets' client role (the load test uploads
/// its photo and reads server stats).
public enum SimpleHTTP {
    public static func request(_ endpoint: Endpoint, method: String, path: String, body: [UInt8] = [],
                               timeoutSeconds: Int = 120) throws -> (status: Int, body: [UInt8]) {
        do {
            let connection = try LWSClientConnection(endpoint: endpoint, path: path, request: .http(method: method, body: body),
                                                     timeoutSeconds: timeoutSeconds)
            defer { connection.close() }
            let response = connection.response
            guard response.status > 0 else { throw WebSocketClient.Failure("no HTTP response from \(endpoint.host):\(endpoint.port)") }
            return response
        } catch let error as LWSClientConnection.Failure {
            throw WebSocketClient.Failure(error.description)
        }
    }

    /// Plain `http://`.
    public static func request(host: String, port: Int, method: String, path: String, body: [UInt8] = [],
                               timeoutSeconds: Int = 120) throws -> (status: Int, body: [UInt8]) {
        try request(Endpoint(host: host, port: port), method: method, path: path, body: body, timeoutSeconds: timeoutSeconds)
    }
}
