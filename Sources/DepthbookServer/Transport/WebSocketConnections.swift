import CWebSockets
import DepthbookEngine

/// The `/ws` side of the transport: which upgrades are let in, messages in (whole, within the size limit),
/// and each connection's outbox written out in fragments.
///
/// Service thread only, except `outboxFilled` (any thread: a connection has output waiting).
final class WebSocketConnections: @unchecked Sendable {
    struct Handlers: Sendable {
        var text: @Sendable ([UInt8], ClientConnection) -> Void
        var binary: @Sendable ([UInt8], ClientConnection) -> Void
        var oversized: @Sendable (Int, ClientConnection) -> Void
        var closed: @Sendable (ClientConnection) -> Void
    }

    /// One socket (service thread).
    private final class Socket {
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

    static let fragmentBytes = 64 * 1024

    private let access: AccessPolicy
    private let handlers: Handlers
    private let maxMessageBytes: Int
    private let outboxLimit: Int
    private let ids: ConnectionIDs
    private let wake: @Sendable () -> Void

    // Service thread only.
    private var sockets: [UInt64: Socket] = [:]
    /// Where each fragment is laid out for `lws_write`, with LWS_PRE bytes of headroom for the frame header:
    /// one buffer for every write (lws keeps its own copy of whatever the kernel did not take).
    private let fragmentBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(CWS_PRE) + WebSocketConnections.fragmentBytes,
                                                                        alignment: 16)
    /// Whether each upgrading socket presented the access token, from its handshake until it is established.
    private var upgradeGrants: [Int: Bool] = [:]
    // Any thread.
    private let wantsWrite = Locked<Set<UInt64>>([])

    init(access: AccessPolicy, handlers: Handlers, maxMessageBytes: Int, outboxLimit: Int, ids: ConnectionIDs,
         wake: @escaping @Sendable () -> Void) {
        self.access = access
        self.handlers = handlers
        self.maxMessageBytes = maxMessageBytes
        self.outboxLimit = outboxLimit
        self.ids = ids
        self.wake = wake
    }

    deinit { fragmentBuffer.deallocate() }

    /// Only `/ws` upgrades, only by a host name the studio answers to, and only from the served host or a
    /// configured origin (browsers always send Origin; clients without one, like the load test, are not
    /// browsers and cannot be tricked into it). A refused upgrade is answered 403 with the reason. Whether the
    /// socket holds the access token is kept for `established`.
    func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let host = LWSHeaders.value(wsi, WSI_TOKEN_HOST)
        let refusal: String?
        if LWSHeaders.value(wsi, WSI_TOKEN_GET_URI) != "/ws" {
            refusal = "the studio's WebSocket is at /ws"
        } else if !access.admits(host: host) {
            refusal = access.hostRefusal(host)
        } else if !access.admits(origin: LWSHeaders.value(wsi, WSI_TOKEN_ORIGIN), host: host) {
            refusal = "pages from this origin may not open the studio's socket (see `depthbook serve --allow-origin`)"
        } else {
            refusal = nil
        }
        if let refusal {
            _ = refusal.withCString { lws_return_http_status(wsi, 403, $0) }
            return -1
        }
        upgradeGrants[Int(bitPattern: wsi)] = access.grants(authorization: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
                                                            cookie: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_COOKIE),
                                                            queryToken: LWSHeaders.query(wsi)["token"])
        return 0
    }

    func established(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) {
        let id = ids.assign(user)
        let granted = upgradeGrants.removeValue(forKey: Int(bitPattern: wsi)) ?? !access.requiresToken
        let connection = ClientConnection(id: id, access: granted ? .full : .read, outboxLimit: outboxLimit) { [weak self] id in
            self?.outboxFilled(id)
        }
        sockets[id] = Socket(wsi: wsi, connection: connection)
    }

    /// Bytes past which an oversized message is refused by closing rather than read and dropped.
    static func drainedOversizeLimit(_ maxMessageBytes: Int) -> Int { 16 * maxMessageBytes }

    /// A fragment of a message arrived; a whole one goes to the connection's own queue. -1 closes the socket: its
    /// client has more requests waiting than `ClientConnection.waitingRequestLimit` allows.
    func receive(_ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let id = ConnectionIDs.stored(user), let socket = sockets[id] else { return 0 }
        let wsi = socket.wsi
        if socket.incoming.isEmpty, socket.oversizedBytes == nil {
            socket.incomingIsBinary = lws_frame_is_binary(wsi) != 0
        }
        // A frame announcing far more than any message may hold (2^63 bytes, say) is not drained: the socket
        // closes at once with 1009 and the reason, instead of waiting for bytes that never end.
        let limit = Self.drainedOversizeLimit(maxMessageBytes)
        let remaining = UInt64(lws_remaining_packet_payload(wsi))
        let arrived = (socket.oversizedBytes ?? socket.incoming.count) + length
        if remaining > UInt64(limit) || arrived > limit - Int(remaining) {
            let reason = Array("a message is at most \(maxMessageBytes) bytes; this one announced \(UInt64(arrived) &+ remaining)".utf8)
            reason.withUnsafeBufferPointer { lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                                                              UnsafeMutablePointer(mutating: $0.baseAddress), $0.count) }
            return -1
        }
        if let seen = socket.oversizedBytes {
            socket.oversizedBytes = seen + length
        } else if socket.incoming.count + length > maxMessageBytes {
            socket.oversizedBytes = socket.incoming.count + length
            socket.incoming = []
        } else if let input, length > 0 {
            socket.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let connection = socket.connection
        let handlers = self.handlers
        let message = socket.incoming, binary = socket.incomingIsBinary, oversized = socket.oversizedBytes
        socket.incoming = []
        socket.oversizedBytes = nil
        guard connection.admitRequest(bytes: message.count) else {
            let reason = Array("too many requests waiting: this client sends faster than it is answered".utf8)
            reason.withUnsafeBufferPointer { lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                                                              UnsafeMutablePointer(mutating: $0.baseAddress), $0.count) }
            return -1
        }
        connection.requests.async {
            defer { connection.requestHandled(bytes: message.count) }
            if let oversized {
                handlers.oversized(oversized, connection)
            } else if binary {
                handlers.binary(message, connection)
            } else {
                handlers.text(message, connection)
            }
        }
        return 0
    }

    /// Writes one fragment of the current message (or starts the next one); re-arms while output remains.
    func writeable(_ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let id = ConnectionIDs.stored(user), let socket = sockets[id] else { return 0 }
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
        let fragment = fragmentBuffer.baseAddress!.advanced(by: pre)
        bytes[offset..<end].withUnsafeBytes { part in
            if let from = part.baseAddress, part.count > 0 { fragment.copyMemory(from: from, byteCount: part.count) }
        }
        let initial = Int32(binary ? LWS_WRITE_BINARY.rawValue : LWS_WRITE_TEXT.rawValue)
        let flags = lws_write_ws_flags(initial, offset == 0 ? 1 : 0, end == bytes.count ? 1 : 0)
        let written = lws_write(socket.wsi, fragment.assumingMemoryBound(to: UInt8.self), end - offset,
                                lws_write_protocol(UInt32(flags)))
        // lws buffers what the kernel did not take and holds back WRITEABLE until drained: only < 0 is an error.
        if written < 0 { return -1 }
        socket.outgoing = end == bytes.count ? nil : (bytes, end, binary)
        if socket.outgoing != nil || socket.connection.hasOutput { lws_callback_on_writable(socket.wsi) }
        return 0
    }

    /// The socket closed (also for an upgrade refused in `filterUpgrade`, which never got an id).
    func closed(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) {
        upgradeGrants[Int(bitPattern: wsi)] = nil
        guard let id = ConnectionIDs.stored(user), let socket = sockets.removeValue(forKey: id) else { return }
        let connection = socket.connection
        // Closed at once, not when its queue gets to it: a page reloading mid-export resumes the session on a
        // new socket, and its hello (on that socket's queue) must find the old one closed to be handed the export.
        connection.markClosed()
        connection.requests.async { [handlers] in handlers.closed(connection) }
    }

    /// Any thread: connection `id` has output waiting.
    private func outboxFilled(_ id: UInt64) {
        wantsWrite.withLock { _ = $0.insert(id) }
        wake()
    }

    /// Service thread, woken: asks for a writable callback on every socket with output waiting.
    func serviceWakeups() {
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
}
