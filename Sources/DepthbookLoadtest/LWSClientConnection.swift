import CWebSockets
import Foundation

/// One client connection through libwebsockets' client role (ws://, wss://, http://, https://), with the
/// blocking calls the load test and the transport tests want.
///
/// Each connection has its own lws context and service thread (a load test opens a few dozen at most).
/// libwebsockets is not thread-safe apart from `lws_cancel_service`: callers only touch `state` under
/// `condition`, then wake the service thread, which does every lws call.
final class LWSClientConnection: @unchecked Sendable {
    enum Request {
        case webSocket(origin: String?)
        case http(method: String, body: [UInt8])
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Everything the two threads share, guarded by `condition`.
    private struct State {
        var established = false
        var finished = false
        var error: String?
        var inbox: [WebSocketClient.Message] = []
        var outbox: [[UInt8]] = []
        var closing = false
        var partial: [UInt8] = []
        var partialIsBinary = false
        var status = 0
        var body: [UInt8] = []
        var bodySent = 0
    }

    private let condition = NSCondition()
    private var state = State()
    private let request: Request
    private let authorization: String?
    private let timeout: TimeInterval
    private var context: OpaquePointer?
    private var wsi: OpaquePointer?
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var stopping = false
    private let serviceDone = DispatchSemaphore(value: 0)

    /// Connects; for a WebSocket returns once the upgrade is done, for HTTP once the answer is complete.
    init(endpoint: Endpoint, path: String, request: Request, timeoutSeconds: Int) throws {
        self.request = request
        authorization = endpoint.token.map { "Bearer \($0)" }
        timeout = TimeInterval(max(1, timeoutSeconds))
        lws_set_log_level(ProcessInfo.processInfo.environment["DEPTHBOOK_LWS_LOG"].flatMap { Int32($0) } ?? 0, nil)
        let list = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        list[0] = lws_protocols()
        list[0].name = UnsafePointer(keep("depthbook-client"))
        list[0].callback = lwsClientCallback
        list[0].rx_buffer_size = 65536
        list[1] = lws_protocols()
        protocols = list

        var info = lws_context_creation_info()
        info.port = -1  // CONTEXT_PORT_NO_LISTEN: a client only.
        info.protocols = UnsafePointer(list)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // lws's own wait for a server's answer is 5 s: an upload behind others being decoded took longer, and
        // the client closed it with no status ("no HTTP response" in the soak). The caller's timeout rules.
        info.timeout_secs = UInt32(max(1, timeoutSeconds))
        // Send the Origin as given (lws would otherwise prefix "http://", wrong for an https page).
        info.options |= UInt64(LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN)
        if endpoint.tls {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            if let caFile = endpoint.caFile { info.client_ssl_ca_filepath = UnsafePointer(keep(caFile)) }
        }
        guard let context = lws_create_context(&info) else {
            release()
            throw Failure(description: "libwebsockets could not start a client")
        }
        self.context = context

        var connect = lws_client_connect_info()
        connect.context = context
        connect.address = UnsafePointer(keep(endpoint.host))
        connect.port = Int32(endpoint.port)
        connect.path = UnsafePointer(keep(path))
        connect.host = UnsafePointer(keep("\(endpoint.host):\(endpoint.port)"))
        connect.ietf_version_or_minus_one = -1
        if endpoint.tls {
            // An IP literal has no name to check: the pinned CA file is what vouches for the server.
            let literal = endpoint.host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
            connect.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue) | (literal ? Int32(LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue) : 0)
        }
        switch request {
        case .webSocket(let origin):
            // Like the old client and unlike a browser, no Origin unless asked for: the server lets tools in.
            if let origin { connect.origin = UnsafePointer(keep(origin)) }
        case .http(let method, _):
            connect.method = UnsafePointer(keep(method))
            // Without naming our protocol, lws 4.1 swallows the body instead of handing it to the callback.
            connect.protocol = list[0].name
            connect.local_protocol_name = list[0].name
        }
        wsi = lws_client_connect_via_info(&connect)
        guard wsi != nil else {
            lws_context_destroy(context)
            self.context = nil
            release()
            throw Failure(description: "cannot connect to \(endpoint.host):\(endpoint.port)")
        }
        startService()
        let ready = wait { state in
            if case .webSocket = request { return state.established || state.finished }
            return state.finished
        }
        condition.lock()
        let error = state.error, established = state.established
        condition.unlock()
        if !ready || error != nil || (!established && isWebSocket) {
            stop()
            throw Failure(description: error ?? (ready ? "the server closed the connection" : "no answer within \(Int(timeout)) s"))
        }
    }

    deinit {
        stop()
        release()
    }

    private var isWebSocket: Bool {
        if case .webSocket = request { return true }
        return false
    }

    /// The HTTP status and body (HTTP requests).
    var response: (status: Int, body: [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        return (state.status, state.body)
    }

    /// Queues one text message; the service thread writes it.
    func send(_ text: String) throws {
        condition.lock()
        if state.finished {
            condition.unlock()
            throw Failure(description: state.error ?? "the connection closed")
        }
        state.outbox.append(Array(text.utf8))
        condition.unlock()
        wakeService()
    }

    /// Wakes the service thread to write. The context is read and woken under the lock, and the service thread
    /// lets go of it under the same lock before destroying it, so a wake-up never reaches a destroyed context.
    private func wakeService() {
        condition.lock()
        if let context { lws_cancel_service(context) }
        condition.unlock()
    }

    /// The next message, waiting at most the timeout.
    func receive() throws -> WebSocketClient.Message {
        guard wait({ !$0.inbox.isEmpty || $0.finished }) else { throw Failure(description: "no message within \(Int(timeout)) s") }
        condition.lock()
        defer { condition.unlock() }
        guard !state.inbox.isEmpty else { throw Failure(description: state.error ?? "the server closed the connection") }
        return state.inbox.removeFirst()
    }

    /// Sends a close frame (WebSocket), waits briefly for the server's, then ends the service thread.
    func close() {
        condition.lock()
        let open = !state.finished
        state.closing = true
        condition.unlock()
        if open {
            wakeService()
            _ = wait({ $0.finished }, seconds: 2)
        }
        stop()
    }

    // MARK: Threads

    private func startService() {
        let thread = Thread { [self] in
            condition.lock()
            let serviced = context
            condition.unlock()
            while true {
                condition.lock()
                let done = stopping
                condition.unlock()
                if done || lws_service(serviced, 0) < 0 { break }
            }
            // Nobody may wake it once it is let go; destroying it runs callbacks that take the lock, so outside it.
            condition.lock()
            context = nil
            condition.unlock()
            lws_context_destroy(serviced)
            serviceDone.signal()
        }
        thread.name = "depthbook-lws-client"
        thread.start()
    }

    private func stop() {
        condition.lock()
        let running = context != nil && !stopping
        stopping = true
        if running, let context { lws_cancel_service(context) }
        condition.unlock()
        guard running else { return }
        serviceDone.wait()
    }

    /// Waits until `ready(state)` holds; false on timeout.
    private func wait(_ ready: (State) -> Bool, seconds: TimeInterval? = nil) -> Bool {
        let deadline = Date().addingTimeInterval(seconds ?? timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ready(state) {
            if !condition.wait(until: deadline) { return ready(state) }
        }
        return true
    }

    private func update(_ change: (inout State) -> Void) {
        condition.lock()
        change(&state)
        condition.broadcast()
        condition.unlock()
    }

    private func keep(_ text: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(text)!
        cStrings.append(copy)
        return copy
    }

    private func release() {
        cStrings.forEach { free($0) }
        cStrings = []
        protocols?.deallocate()
        protocols = nil
    }

    // MARK: Callback (service thread)

    /// Handles what a client needs; nil leaves the reason to lws's default handler.
    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?,
                            _ length: Int) -> Int32? {
        switch reason {
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            update { $0.error = "the connection failed: \(message)"; $0.finished = true }
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            update { $0.established = true }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            let bytes = input.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            let first = lws_is_first_fragment(wsi) != 0, binary = lws_frame_is_binary(wsi) != 0
            let complete = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
            update { s in
                if first && s.partial.isEmpty { s.partialIsBinary = binary }
                s.partial += bytes
                if complete {
                    s.inbox.append(s.partialIsBinary ? .binary(s.partial) : .text(String(decoding: s.partial, as: UTF8.self)))
                    s.partial = []
                }
            }
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            condition.lock()
            let wants = !state.outbox.isEmpty || state.closing
            condition.unlock()
            if wants, let own = self.wsi { lws_callback_on_writable(own) }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            condition.lock()
            let closing = state.closing && state.outbox.isEmpty
            let next = state.outbox.isEmpty ? nil : state.outbox.removeFirst()
            let more = !state.outbox.isEmpty
            condition.unlock()
            if closing {
                lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
                return -1
            }
            if let next {
                var frame = [UInt8](repeating: 0, count: CWS_PRE + next.count)
                frame.replaceSubrange(CWS_PRE..., with: next)
                let written = frame.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + CWS_PRE, next.count, LWS_WRITE_TEXT) }
                if written < next.count { return -1 }
            }
            if more { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            guard let input else { break }
            // `input` is `unsigned char **p`, the place to write headers, with `length` bytes of room.
            let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            guard let start = cursor.pointee else { return -1 }
            let end = start + length
            if let authorization,
               lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, authorization, Int32(authorization.utf8.count), cursor, end) != 0 {
                return -1
            }
            guard case .http(_, let body) = request, !body.isEmpty else { break }
            let size = "\(body.count)", kind = "application/octet-stream"
            if lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, size, Int32(size.utf8.count), cursor, end) != 0
                || lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, kind, Int32(kind.utf8.count), cursor, end) != 0 {
                return -1
            }
            lws_client_http_body_pending(wsi, 1)
            lws_callback_on_writable(wsi)
        case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
            guard case .http(_, let body) = request else { break }
            condition.lock()
            let offset = state.bodySent
            condition.unlock()
            let chunk = min(body.count - offset, 32768)
            let last = offset + chunk >= body.count
            var frame = [UInt8](repeating: 0, count: CWS_PRE + chunk)
            frame.replaceSubrange(CWS_PRE..., with: body[offset..<(offset + chunk)])
            let written = frame.withUnsafeMutableBufferPointer {
                lws_write(wsi, $0.baseAddress! + CWS_PRE, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            }
            if written < chunk { return -1 }
            update { $0.bodySent = offset + chunk }
            if last { lws_client_http_body_pending(wsi, 0) } else { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            let status = Int(lws_http_client_http_response(wsi))
            update { $0.status = status }
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            var buffer = [CChar](repeating: 0, count: CWS_PRE + 16384)
            let result = buffer.withUnsafeMutableBufferPointer { b -> Int32 in
                var cursor: UnsafeMutablePointer<CChar>? = b.baseAddress! + CWS_PRE
                var room = Int32(16384)
                return lws_http_client_read(wsi, &cursor, &room)
            }
            if result < 0 { return -1 }
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            let bytes = input.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            update { $0.body += bytes }
        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            update { $0.finished = true }
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_CLOSED_CLIENT_HTTP:
            update { $0.finished = true }
        case LWS_CALLBACK_WSI_DESTROY:
            if wsi == self.wsi {
                self.wsi = nil
                update { $0.finished = true }
            }
        default:
            return nil
        }
        return 0
    }
}

/// The C entry point libwebsockets calls; finds the connection through the context's user pointer.
private func lwsClientCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                               _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let connection = Unmanaged<LWSClientConnection>.fromOpaque(raw).takeUnretainedValue()
    return connection.handle(wsi, reason, input, length) ?? lws_callback_http_dummy(wsi, reason, user, input, length)
}
