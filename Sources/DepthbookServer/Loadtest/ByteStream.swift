import CWebSockets
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the load test connects: host, port, and whether to speak TLS (`wss://`, `https://`).
public struct Endpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// PEM file of the certificate authority to trust (a self-signed certificate works too); nil uses the
    /// system's store.
    public var caFile: String?

    public init(host: String, port: Int, tls: Bool = false, caFile: String? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
    }
}

/// A blocking TCP connection, optionally wrapped in TLS (OpenSSL), for the load test's clients.
///
/// TLS verifies the server's certificate chain against `caFile`; the host name is checked too when it is a
/// name (for an IP literal the pinned CA file is what vouches for the server).
final class ByteStream: @unchecked Sendable {
    let fd: Int32
    private var context: OpaquePointer?
    private var ssl: OpaquePointer?
    private let writeLock = NSLock()

    init(_ endpoint: Endpoint, timeoutSeconds: Int) throws {
        fd = try Self.connectTCP(host: endpoint.host, port: endpoint.port, timeoutSeconds: timeoutSeconds)
        guard endpoint.tls else { return }
        do {
            try startTLS(endpoint)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        if let ssl {
            SSL_shutdown(ssl)
            SSL_free(ssl)
            self.ssl = nil
        }
        if let context {
            SSL_CTX_free(context)
            self.context = nil
        }
        Glibc.close(fd)
    }

    func shutdownBoth() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    private func startTLS(_ endpoint: Endpoint) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw tlsFailure("cannot create a TLS context") }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile = endpoint.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else { throw tlsFailure("cannot read the CA file \(caFile)") }
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        guard let ssl = SSL_new(context) else { throw tlsFailure("cannot create a TLS connection") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        let isIPLiteral = endpoint.host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
        if !isIPLiteral {
            _ = CWS_SSL_set_sni(ssl, endpoint.host)
            SSL_set1_host(ssl, endpoint.host)
        }
        guard SSL_connect(ssl) == 1 else { throw tlsFailure("the TLS handshake with \(endpoint.host):\(endpoint.port) failed") }
    }

    private func tlsFailure(_ what: String) -> WebSocketClient.Failure {
        let code = ERR_get_error()
        guard code != 0 else { return WebSocketClient.Failure(what) }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return WebSocketClient.Failure("\(what): \(reason)")
    }

    func writeAll(_ bytes: [UInt8]) throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        var offset = 0
        while offset < bytes.count {
            let n: Int = bytes[offset...].withUnsafeBytes { raw in
                if let ssl { return Int(SSL_write(ssl, raw.baseAddress, Int32(raw.count))) }
                return Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 {
                if ssl == nil, errno == EINTR { continue }
                throw WebSocketClient.Failure("send failed: \(ssl == nil ? String(cString: strerror(errno)) : "TLS write error")")
            }
            offset += n
        }
    }

    /// Reads what is available (at least one byte) into `chunk`; 0 means the peer closed.
    func read(into chunk: inout [UInt8]) throws -> Int {
        while true {
            let n: Int = chunk.withUnsafeMutableBytes { raw in
                if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
                return recv(fd, raw.baseAddress, raw.count, 0)
            }
            if n > 0 { return n }
            if let ssl {
                let error = SSL_get_error(ssl, Int32(n))
                if error == SSL_ERROR_ZERO_RETURN { return 0 }
                if error == SSL_ERROR_SYSCALL, errno == EAGAIN { throw WebSocketClient.Failure("timed out waiting for the server") }
                if error == SSL_ERROR_SYSCALL, n == 0 { return 0 }
                throw WebSocketClient.Failure("TLS read error \(error)")
            }
            if n == 0 { return 0 }
            if errno == EINTR { continue }
            throw WebSocketClient.Failure(errno == EAGAIN ? "timed out waiting for the server" : "recv failed: \(String(cString: strerror(errno)))")
        }
    }

    static func connectTCP(host: String, port: Int, timeoutSeconds: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw WebSocketClient.Failure("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return fd
                }
                Glibc.close(fd)
            }
            cursor = info.pointee.ai_next
        }
        throw WebSocketClient.Failure("cannot connect to \(host):\(port)")
    }
}
