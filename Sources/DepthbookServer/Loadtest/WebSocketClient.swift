import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal RFC 6455 client over a blocking socket (plain or TLS), for the load test only.
///
/// It sends masked text frames and reads text, binary, ping and close frames, joining fragments. The
/// handshake checks for `101 Switching Protocols`; it does not verify `Sec-WebSocket-Accept`, since it
/// only ever talks to our own server.
public final class WebSocketClient: @unchecked Sendable {
    public enum Message: Sendable {
        case text(String)
        case binary([UInt8])
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    private let stream: ByteStream
    private var buffer: [UInt8] = []

    /// Connects and upgrades; `timeoutSeconds` bounds every later read. `origin` is sent as a browser would.
    public init(endpoint: Endpoint, path: String, origin: String? = nil, timeoutSeconds: Int = 30) throws {
        stream = try ByteStream(endpoint, timeoutSeconds: timeoutSeconds)
        var key = [UInt8](repeating: 0, count: 16)
        for i in key.indices { key[i] = UInt8.random(in: 0...255) }
        var request = "GET \(path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        request += "\r\n"
        try stream.writeAll(Array(request.utf8))
        let head = try readUntilBlankLine()
        guard head.hasPrefix("HTTP/1.1 101") else {
            throw Failure("the server refused the WebSocket upgrade: \(head.split(separator: "\r\n").first ?? "")")
        }
    }

    /// A plain `ws://` connection.
    public convenience init(host: String, port: Int, path: String, timeoutSeconds: Int = 30) throws {
        try self.init(endpoint: Endpoint(host: host, port: port), path: path, timeoutSeconds: timeoutSeconds)
    }

    /// Sends one text message (a single masked frame).
    public func send(text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try stream.writeAll(frame)
    }

    /// The next complete message; answers pings, throws on close or error.
    public func receive() throws -> Message {
        var assembled: [UInt8] = []
        var messageOpcode: UInt8?
        while true {
            let head = try read(2)
            let fin = head[0] & 0x80 != 0, opcode = head[0] & 0x0F
            var length = Int(head[1] & 0x7F)
            if length == 126 {
                let b = try read(2)
                length = Int(b[0]) << 8 | Int(b[1])
            } else if length == 127 {
                length = try read(8).reduce(0) { $0 << 8 | Int($1) }
            }
            let mask = head[1] & 0x80 != 0 ? try read(4) : nil
            var payload = try read(length)
            if let mask { payload = payload.enumerated().map { $0.element ^ mask[$0.offset & 3] } }
            switch opcode {
            case 0x8: throw Failure("the server closed the connection")
            case 0x9:
                try sendControl(opcode: 0xA, payload: payload)
                continue
            case 0xA: continue
            case 0x0: assembled += payload
            default:
                messageOpcode = opcode
                assembled = payload
            }
            if fin {
                switch messageOpcode {
                case 0x1: return .text(String(decoding: assembled, as: UTF8.self))
                case 0x2: return .binary(assembled)
                default: throw Failure("a message with opcode \(messageOpcode.map(String.init) ?? "none")")
                }
            }
        }
    }

    /// Closes the connection (a close frame, then the socket).
    public func shutdown() {
        try? sendControl(opcode: 0x8, payload: [0x03, 0xE8])
        stream.shutdownBoth()
    }

    private func sendControl(opcode: UInt8, payload: [UInt8]) throws {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        let frame = [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try stream.writeAll(frame)
    }

    // MARK: Reading

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = try stream.read(into: &chunk)
        if n == 0 { throw Failure("the connection closed") }
        buffer += chunk[0..<n]
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return out
    }

    private func readUntilBlankLine() throws -> String {
        while true {
            if let range = findBlankLine() {
                let head = String(decoding: buffer[0..<range], as: UTF8.self)
                buffer.removeFirst(range + 4)
                return head
            }
            if buffer.count > 65536 { throw Failure("the upgrade response is too long") }
            try fill()
        }
    }

    private func findBlankLine() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// One HTTP/1.1 request over a fresh connection (the load test uploads its photo and reads server stats).
public enum SimpleHTTP {
    public static func request(_ endpoint: Endpoint, method: String, path: String, body: [UInt8] = [],
                               timeoutSeconds: Int = 120) throws -> (status: Int, body: [UInt8]) {
        let stream = try ByteStream(endpoint, timeoutSeconds: timeoutSeconds)
        defer { stream.close() }
        let head = "\(method) \(path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\nContent-Length: \(body.count)\r\n"
            + "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        try stream.writeAll(Array(head.utf8) + body)
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var expected: Int?
        while true {
            if headerEnd == nil, let split = findBlankLine(response) {
                headerEnd = split
                let text = String(decoding: response[0..<split], as: UTF8.self).lowercased()
                expected = text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
            }
            if let headerEnd, let expected, response.count >= headerEnd + 4 + expected { break }
            let n = try stream.read(into: &chunk)
            if n == 0 { break }
            response += chunk[0..<n]
        }
        guard let split = headerEnd else { throw WebSocketClient.Failure("no HTTP response from \(endpoint.host):\(endpoint.port)") }
        let statusLine = String(decoding: response[0..<split], as: UTF8.self).split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw WebSocketClient.Failure("a malformed HTTP response") }
        return (status, Array(response[(split + 4)...]))
    }

    /// Plain `http://`.
    public static func request(host: String, port: Int, method: String, path: String, body: [UInt8] = [],
                               timeoutSeconds: Int = 120) throws -> (status: Int, body: [UInt8]) {
        try request(Endpoint(host: host, port: port), method: method, path: path, body: body, timeoutSeconds: timeoutSeconds)
    }

    private static func findBlankLine(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }
}
