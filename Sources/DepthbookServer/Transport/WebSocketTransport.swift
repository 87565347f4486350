import CWebSockets

/// The libwebsockets shell: one context (`LWSContext`), its service thread, and the two kinds of connection
/// it serves, `/ws` WebSockets (`WebSocketConnections`) and HTTP (`HTTPTransactions`).
///
/// Threading contract (libwebsockets is built with LWS_MAX_SMP = 1): every lws call except
/// `lws_cancel_service` happens on the service thread, and the state of both sides is touched only there.
/// Other threads (request queues, render workers, HTTP handlers) hand work over under a lock and wake the
/// service thread; it answers `EVENT_WAIT_CANCELLED` by asking for writable callbacks, and writes one message
/// (or one fragment) per `WRITEABLE` callback.
final class WebSocketTransport: @unchecked Sendable {
    /// Callbacks into the rest of the server; all are called off the service thread.
    struct Handlers: Sendable {
        var http: @Sendable (HTTPRequest) -> HTTPResponse
        var text: @Sendable ([UInt8], ClientConnection) -> Void
        var binary: @Sendable ([UInt8], ClientConnection) -> Void
        var oversized: @Sendable (Int, ClientConnection) -> Void
        var closed: @Sendable (ClientConnection) -> Void
    }

    let configuration: ServerConfiguration
    private let lws = LWSContext()
    private let webSockets: WebSocketConnections
    private let http: HTTPTransactions
    private(set) var boundPort: Int = 0

    init(configuration: ServerConfiguration, maxMessageBytes: Int, handlers: Handlers) {
        self.configuration = configuration
        let ids = ConnectionIDs()
        let wake: @Sendable () -> Void = { [lws] in lws.wake() }
        webSockets = WebSocketConnections(
            access: configuration.accessPolicy,
            handlers: .init(text: handlers.text, binary: handlers.binary, oversized: handlers.oversized, closed: handlers.closed),
            maxMessageBytes: maxMessageBytes, outboxLimit: configuration.memoryBudget.outboxBytesPerConnection, ids: ids, wake: wake)
        http = HTTPTransactions(access: configuration.accessPolicy, uploadLimit: configuration.uploadLimitBytes,
                                spoolDirectory: Self.spoolDirectory(configuration), ids: ids, wake: wake, answer: handlers.http)
    }

    /// Where upload bodies are written as they arrive (made, and emptied of a previous run's, by `StudioServer`).
    static func spoolDirectory(_ configuration: ServerConfiguration) -> String { configuration.dataDirectory + "/incoming" }

    /// Creates the context and starts listening; returns the port actually bound.
    func start() throws -> Int {
        boundPort = try lws.start(host: configuration.host, port: configuration.port, callback: webSocketTransportCallback,
                                  user: Unmanaged.passUnretained(self).toOpaque())
        return boundPort
    }

    /// Runs the service loop on a thread of its own until `stop()`.
    func runInBackground() { lws.runInBackground() }

    /// Ends the service loop and waits for the context to be destroyed.
    func stop() { lws.stop() }

    /// Every libwebsockets event, on the service thread, routed to the side it concerns.
    fileprivate func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                            _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return webSockets.filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED: webSockets.established(wsi, user)
        case LWS_CALLBACK_RECEIVE: return webSockets.receive(user, input, length)
        case LWS_CALLBACK_SERVER_WRITEABLE: return webSockets.writeable(user)
        case LWS_CALLBACK_CLOSED: webSockets.closed(wsi, user)
        case LWS_CALLBACK_HTTP: http.begin(wsi, user, input, length)
        case LWS_CALLBACK_HTTP_BODY: http.body(user, input, length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION: http.bodyComplete(wsi, user)
        case LWS_CALLBACK_HTTP_WRITEABLE: return http.writeable(user)
        case LWS_CALLBACK_CLOSED_HTTP: http.closed(user)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            http.serviceWakeups()
            webSockets.serviceWakeups()
        default: return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return 0
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
