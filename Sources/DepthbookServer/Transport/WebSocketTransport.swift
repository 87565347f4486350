import CWebSockets
import Dispatch
import Foundation
import Synchronization

/// The libwebsockets shell: one context, one service thread, HTTP and the `/ws` WebSocket.
///
/// Threading contract (libwebsockets is built with LWS_MAX_SMP = 1): every lws call except
/// `lws_cancel_service` happens on the service thread, and every dictionary below marked "service thread"
/// is touched only there. Other threads (request queues, render workers, HTTP handlers) put work in the
/// `ready` sets under a lock and call `lws_cancel_service`; the service thread answers
/// `EVENT_WAIT_CANCELLED` by asking for writable callbacks, and writes one message (or one fragment) per
/// `WRITEABLE` callback.
final class WebSocketTransport: @unchecked Sendable {
    /// Callbacks into the rest of the server; all are called off the service thread.
    struct Handlers: Sendable {
        var http: @Sendable (HTTPRequest) -> HTTPResponse
        var text: @Sendable ([UInt8], ClientConnection) -> Void
        var binary: @Sendable ([UInt8], ClientConnection) -> Void
        var oversized: @Sendable (Int, ClientConnection) -> Void
        var closed: @Sendable (ClientConnection) -> Void
    }

    /// Per WebSocket (service thread).
    private final class SocketState {
        let wsi: OpaquePointer
        let connection: ClientConnection
        var incoming: [UInt8] = []
        var incomingIsBinary = false
        /// Bytes of the current message so far once it went over the limit (it is then discarded).
        var oversizedBytes: Int?
        /// The message being written in fragments.
        var outgoing: (bytes: [UInt8], offset: Int, binary: Bool)?

        init(wsi: OpaquePointer, connection: ClientConnection) {
            self.wsi = wsi
            self.connection = connection
        }
    }

    /// Per HTTP transaction (service thread).
    private final class HTTPState {
        let wsi: OpaquePointer
        var request: HTTPRequest
        var bodyTooLarge = false
        /// Set when the request is refused before it is read (a host name the studio does not answer to):
        /// the body is read and dropped, then this is the answer.
        var refusal: HTTPResponse?
        var response: HTTPResponse?
        var headersSent = false
        var bodyOffset = 0

        init(wsi: OpaquePointer, request: HTTPRequest) {
            self.wsi = wsi
            self.request = request
        }
    }

    let configuration: ServerConfiguration
    private let access: AccessPolicy
    private let handlers: Handlers
    private let uploadLimit: Int
    private let maxMessageBytes: Int
    private static let fragmentBytes = 64 * 1024
    static let maxHeaderBytes = 16 * 1024

    /// Set by `start`, cleared by the service thread under the lock before the context is destroyed, so
    /// other threads never cancel the service of a context that is gone.
    private let context = Mutex<ContextHandle?>(nil)
    private(set) var boundPort: Int = 0
    private let stopping = Atomic<Bool>(false)
    private let serviceDone = DispatchSemaphore(value: 0)

    // Service thread only.
    private var sockets: [UInt64: SocketState] = [:]
    private var transactions: [UInt64: HTTPState] = [:]
    /// Whether each upgrading socket presented the access token, from its handshake until it is established.
    private var upgradeGrants: [Int: Bool] = [:]
    // Any thread.
    private let wantsWrite = Mutex<Set<UInt64>>([])
    private let responses = Mutex<[UInt64: HTTPResponse]>([:])
    private let nextID = Atomic<UInt64>(1)
    private let httpQueue = DispatchQueue(label: "depthbook.http", attributes: .concurrent)

    // C memory that must outlive the context.
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(configuration: ServerConfiguration, maxMessageBytes: Int, handlers: Handlers) {
        self.configuration = configuration
        self.access = configuration.accessPolicy
        self.handlers = handlers
        self.uploadLimit = configuration.uploadLimitBytes
        self.maxMessageBytes = maxMessageBytes
    }

    deinit {
        for s in cStrings { free(s) }
        protocols?.deallocate()
    }

    struct ListenError: Error, CustomStringConvertible {
        var host: String
        var port: Int
        var description: String { "cannot listen on \(host):\(port) (is the port in use, or the address not local?)" }
    }

    /// Creates the context and starts listening; returns the port actually bound.
    func start() throws -> Int {
        lws_set_log_level(Int32(LLL_ERR), nil)
        let name = strdup("depthbook-studio")!
        cStrings.append(name)
        let list = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        list[0] = lws_protocols()
        list[0].name = UnsafePointer(name)
        list[0].callback = webSocketTransportCallback
        list[0].per_session_data_size = MemoryLayout<UInt64>.size
        list[0].rx_buffer_size = 65536
        list[1] = lws_protocols()  // the terminator
        protocols = list

        var info = lws_context_creation_info()
        info.port = Int32(configuration.port)
        info.protocols = UnsafePointer(list)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // Request headers up to 16 KiB in all (lws's default, 4 KiB, dropped a request with a large cookie
        // without any answer). Larger ones are refused by lws with 431.
        info.max_http_header_data = UInt16(Self.maxHeaderBytes)
        // No permessage-deflate: JPEG does not compress and lws 4.1's deflate crashed on large frames.
        info.extensions = nil
        let iface: UnsafeMutablePointer<CChar>? = configuration.host == "0.0.0.0" ? nil : strdup(configuration.host)
        if let iface { cStrings.append(iface) }
        info.iface = UnsafePointer(iface)
        guard let context = lws_create_context(&info) else {
            throw ListenError(host: configuration.host, port: configuration.port)
        }
        self.context.withLock { $0 = ContextHandle(pointer: context) }
        let vhost = lws_get_vhost_by_name(context, "default")
        boundPort = vhost.map { Int(lws_get_vhost_listen_port($0)) } ?? configuration.port
        return boundPort
    }

    /// Runs the service loop on a thread of its own until `stop()`.
    func runInBackground() {
        guard let handle = context.withLock({ $0 }) else { return }
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                if lws_service(handle.pointer, 0) < 0 { break }
            }
            context.withLock { $0 = nil }
            lws_context_destroy(handle.pointer)
            serviceDone.signal()
        }
        thread.name = "depthbook-lws"
        thread.start()
    }

    /// Ends the service loop and waits for the context to be destroyed.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let running = context.withLock { handle -> Bool in
            guard let handle else { return false }
            lws_cancel_service(handle.pointer)
            return true
        }
        if running { serviceDone.wait() }
    }

    /// Called from any thread: connection `id` has output waiting.
    private func wake(_ id: UInt64) {
        wantsWrite.withLock { _ = $0.insert(id) }
        cancelService()
    }

    /// Wakes the service thread (any thread; a no-op once the context is gone).
    private func cancelService() {
        context.withLock { handle in
            if let handle { lws_cancel_service(handle.pointer) }
        }
    }

    // MARK: Callback (service thread)

    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                            _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)

        case LWS_CALLBACK_ESTABLISHED:
            let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
            user?.storeBytes(of: id, as: UInt64.self)
            let granted = upgradeGrants.removeValue(forKey: Int(bitPattern: wsi)) ?? !access.requiresToken
            let connection = ClientConnection(id: id, access: granted ? .full : .read,
                                              outboxLimit: configuration.memoryBudget.outboxBytesPerConnection) { [weak self] id in
                self?.wake(id)
            }
            sockets[id] = SocketState(wsi: wsi, connection: connection)
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let id = connectionID(user), let socket = sockets[id] else { return 0 }
            receive(socket, input, length)
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id = connectionID(user), let socket = sockets[id] else { return 0 }
            return writeNext(socket)

        case LWS_CALLBACK_CLOSED:
            // Also fires for an upgrade refused in FILTER_PROTOCOL_CONNECTION, which never got an id.
            upgradeGrants[Int(bitPattern: wsi)] = nil
            guard let id = connectionID(user), let socket = sockets.removeValue(forKey: id) else { return 0 }
            let connection = socket.connection
            connection.requests.async { [handlers] in handlers.closed(connection) }
            return 0

        case LWS_CALLBACK_HTTP:
            return beginHTTP(wsi, user, input, length)

        case LWS_CALLBACK_HTTP_BODY:
            guard let id = connectionID(user), let transaction = transactions[id], let input else { return 0 }
            if transaction.refusal != nil { return 0 }
            if transaction.bodyTooLarge || transaction.request.body.count + length > uploadLimit {
                transaction.bodyTooLarge = true
                transaction.request.body = []
            } else {
                transaction.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let id = connectionID(user), let transaction = transactions[id] else { return 0 }
            if transaction.response == nil {
                if let refusal = transaction.refusal {
                    transaction.response = refusal
                    lws_callback_on_writable(wsi)
                } else if transaction.bodyTooLarge {
                    transaction.response = .jsonError(413, "uploads are at most \(uploadLimit) bytes")
                    lws_callback_on_writable(wsi)
                } else {
                    dispatchHTTP(id, transaction.request)
                }
            }
            return 0

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let id = connectionID(user), let transaction = transactions[id] else { return 0 }
            return writeHTTP(id, transaction)

        case LWS_CALLBACK_CLOSED_HTTP:
            if let id = connectionID(user) { transactions[id] = nil }
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceWakeups()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func connectionID(_ user: UnsafeMutableRawPointer?) -> UInt64? {
        guard let id = user?.load(as: UInt64.self), id != 0 else { return nil }
        return id
    }

    /// Moves work other threads finished onto the sockets: responses ready, outboxes filled.
    private func serviceWakeups() {
        let ready = responses.withLock { r in defer { r.removeAll() }; return r }
        for (id, response) in ready {
            guard let transaction = transactions[id] else { continue }
            transaction.response = response
            lws_callback_on_writable(transaction.wsi)
        }
        let ids = wantsWrite.withLock { w in defer { w.removeAll() }; return w }
        for id in ids {
            guard let socket = sockets[id] else { continue }
            if socket.connection.isCutOff {
                // Closed from here, not from a WRITEABLE callback: a client that stopped reading may never
                // let lws drain what it already holds, and so never become writable again.
                lws_set_timeout(socket.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            } else {
                lws_callback_on_writable(socket.wsi)
            }
        }
    }

    // MARK: WebSocket

    /// Only `/ws` upgrades, only by a host name the studio answers to, and only from the served host or a
    /// configured origin (browsers always send Origin; clients without one, like the load test, are not
    /// browsers and cannot be tricked into it). A refused upgrade is answered 403 with the reason. Whether the
    /// socket holds the access token is kept for `ESTABLISHED`.
    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let host = header(wsi, WSI_TOKEN_HOST)
        let refusal: String?
        if header(wsi, WSI_TOKEN_GET_URI) != "/ws" {
            refusal = "the studio's WebSocket is at /ws"
        } else if !access.admits(host: host) {
            refusal = access.hostRefusal(host)
        } else if !access.admits(origin: header(wsi, WSI_TOKEN_ORIGIN), host: host) {
            refusal = "pages from this origin may not open the studio's socket (see `depthbook serve --allow-origin`)"
        } else {
            refusal = nil
        }
        if let refusal {
            _ = refusal.withCString { lws_return_http_status(wsi, 403, $0) }
            return -1
        }
        upgradeGrants[Int(bitPattern: wsi)] = access.grants(authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
                                                            cookie: header(wsi, WSI_TOKEN_HTTP_COOKIE),
                                                            queryToken: queryArguments(wsi)["token"])
        return 0
    }

    private func receive(_ socket: SocketState, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        let wsi = socket.wsi
        if socket.incoming.isEmpty, socket.oversizedBytes == nil {
            socket.incomingIsBinary = lws_frame_is_binary(wsi) != 0
        }
        if let seen = socket.oversizedBytes {
            socket.oversizedBytes = seen + length
        } else if socket.incoming.count + length > maxMessageBytes {
            socket.oversizedBytes = socket.incoming.count + length
            socket.incoming = []
        } else if let input, length > 0 {
            socket.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return }
        let connection = socket.connection
        let handlers = self.handlers
        if let oversized = socket.oversizedBytes {
            connection.requests.async { handlers.oversized(oversized, connection) }
        } else {
            let message = socket.incoming, binary = socket.incomingIsBinary
            connection.requests.async {
                if binary { handlers.binary(message, connection) } else { handlers.text(message, connection) }
            }
        }
        socket.incoming = []
        socket.oversizedBytes = nil
    }

    /// Writes one fragment of the current message (or starts the next one); re-arms while output remains.
    private func writeNext(_ socket: SocketState) -> Int32 {
        if socket.connection.isCutOff {
            let reason = Array("too much unread output: this page stopped reading".utf8)
            reason.withUnsafeBufferPointer { lws_close_reason(socket.wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                                                              UnsafeMutablePointer(mutating: $0.baseAddress), $0.count) }
            return -1
        }
        if socket.outgoing == nil {
            switch socket.connection.nextMessage() {
            case .text(let bytes): socket.outgoing = (bytes, 0, false)
            case .binary(let bytes): socket.outgoing = (bytes, 0, true)
            case nil: return 0
            }
        }
        guard let (bytes, offset, binary) = socket.outgoing else { return 0 }
        let end = min(bytes.count, offset + Self.fragmentBytes)
        let pre = Int(CWS_PRE)
        // Each fragment gets its own buffer with LWS_PRE bytes of headroom for the frame header.
        var buffer = [UInt8](repeating: 0, count: pre + (end - offset))
        buffer.replaceSubrange(pre..<buffer.count, with: bytes[offset..<end])
        let initial = Int32(binary ? LWS_WRITE_BINARY.rawValue : LWS_WRITE_TEXT.rawValue)
        let flags = lws_write_ws_flags(initial, offset == 0 ? 1 : 0, end == bytes.count ? 1 : 0)
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(socket.wsi, raw.baseAddress! + pre, end - offset, lws_write_protocol(UInt32(flags)))
        }
        // lws buffers what the kernel did not take and holds back WRITEABLE until drained: only < 0 is an error.
        if written < 0 { return -1 }
        socket.outgoing = end == bytes.count ? nil : (bytes, end, binary)
        if socket.outgoing != nil || socket.connection.hasOutput { lws_callback_on_writable(socket.wsi) }
        return 0
    }

    // MARK: HTTP

    private func beginHTTP(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?,
                           _ length: Int) -> Int32 {
        let id: UInt64
        if let existing = connectionID(user) {
            id = existing
        } else {
            id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
            user?.storeBytes(of: id, as: UInt64.self)
        }
        let method: String, path: String
        if let uri = header(wsi, WSI_TOKEN_POST_URI) {
            (method, path) = ("POST", uri)
        } else if let uri = header(wsi, WSI_TOKEN_GET_URI) {
            (method, path) = ("GET", uri)
        } else if let uri = header(wsi, WSI_TOKEN_HEAD_URI) {
            (method, path) = ("HEAD", uri)
        } else {
            let raw = input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "/"
            (method, path) = ("OTHER", raw)
        }
        let query = queryArguments(wsi)
        let host = header(wsi, WSI_TOKEN_HOST)
        let authorized = access.grants(authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
                                       cookie: header(wsi, WSI_TOKEN_HTTP_COOKIE), queryToken: query["token"])
        let request = HTTPRequest(method: method, path: path, query: query, ifNoneMatch: header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH),
                                  authorized: authorized, tokenRequired: access.requiresToken)
        let transaction = HTTPState(wsi: wsi, request: request)
        transactions[id] = transaction
        if !access.admits(host: host) {
            transaction.refusal = .text(403, access.hostRefusal(host))
            if method != "POST" {
                transaction.response = transaction.refusal
                lws_callback_on_writable(wsi)
            }
            return 0
        }
        if method == "POST" {
            // An announced oversized body is read and dropped, not kept: clients (and proxies) expect to finish
            // sending before they read the 413, and closing early would break their pipe instead.
            if let announced = header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap(Int.init), announced > uploadLimit {
                transaction.bodyTooLarge = true
            }
            return 0  // the body arrives in HTTP_BODY callbacks
        }
        dispatchHTTP(id, request)
        return 0
    }

    /// Answers off the service thread (file reads, decoding uploads), then hands the response back.
    private func dispatchHTTP(_ id: UInt64, _ request: HTTPRequest) {
        let handlers = self.handlers
        httpQueue.async { [weak self] in
            let response = handlers.http(request)
            guard let self else { return }
            responses.withLock { $0[id] = response }
            cancelService()
        }
    }

    private func writeHTTP(_ id: UInt64, _ transaction: HTTPState) -> Int32 {
        guard let response = transaction.response else { return 0 }
        let wsi = transaction.wsi
        let isHead = transaction.request.method == "HEAD"
        if !transaction.headersSent {
            let pre = Int(CWS_PRE)
            var buffer = [UInt8](repeating: 0, count: pre + 2048 + response.headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 8 })
            let failed: Bool = buffer.withUnsafeMutableBufferPointer { raw in
                let start = raw.baseAddress! + pre
                let end = raw.baseAddress! + raw.count
                var p: UnsafeMutablePointer<UInt8>? = start
                if lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                               lws_filepos_t(response.body.count), &p, end) != 0 { return true }
                for (name, value) in response.headers {
                    let added = (name + ":").withCString { n in
                        value.withCString { v in
                            lws_add_http_header_by_name(wsi, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                                                        UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self),
                                                        Int32(value.utf8.count), &p, end)
                        }
                    }
                    if added != 0 { return true }
                }
                return lws_finalize_write_http_header(wsi, start, &p, end) != 0
            }
            if failed { return -1 }
            transaction.headersSent = true
            if response.body.isEmpty || isHead { return finishHTTP(id, transaction) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let offset = transaction.bodyOffset
        let end = min(response.body.count, offset + Self.fragmentBytes)
        let pre = Int(CWS_PRE)
        var buffer = [UInt8](repeating: 0, count: pre + (end - offset))
        buffer.replaceSubrange(pre..<buffer.count, with: response.body[offset..<end])
        let last = end == response.body.count
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, end - offset, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        transaction.bodyOffset = end
        if last { return finishHTTP(id, transaction) }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishHTTP(_ id: UInt64, _ transaction: HTTPState) -> Int32 {
        transactions[id] = nil
        return lws_http_transaction_completed(transaction.wsi) != 0 ? -1 : 0
    }

    // MARK: Headers

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The URL's query arguments (`a=1&b=2`), as lws splits them.
    private func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        var index: Int32 = 0
        while let fragment = headerFragment(wsi, WSI_TOKEN_HTTP_URI_ARGS, index) {
            let parts = fragment.split(separator: "=", maxSplits: 1).map(String.init)
            if let key = parts.first { query[key] = parts.count > 1 ? parts[1] : "" }
            index += 1
        }
        return query
    }

    private func headerFragment(_ wsi: OpaquePointer, _ token: lws_token_indexes, _ index: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 1024)
        let copied = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), token, index)
        guard copied > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The C entry point libwebsockets calls; finds the transport through the context's user pointer.
private func webSocketTransportCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons,
                                        _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?,
                                        _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let transport = Unmanaged<WebSocketTransport>.fromOpaque(raw).takeUnretainedValue()
    return transport.handle(wsi, reason, user, input, length)
}

/// The lws context pointer, handed between the thread that creates it and the service thread under a lock.
private struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
