import CWebSockets
import DepthbookEngine
import Dispatch

/// The HTTP side of the transport: a request read (a POST's body within the upload limit, spooled to disk as it
/// arrives), answered off the service thread, and the response written back in fragments.
///
/// Service thread only, except the answers handed back from the HTTP queue.
final class HTTPTransactions: @unchecked Sendable {
    /// One request and its response (service thread).
    private final class Transaction {
        let wsi: OpaquePointer
        var request: HTTPRequest
        var bodyTooLarge = false
        /// A POST without the studio's token: its body is read and dropped, and the router answers the refusal.
        var unauthorized = false
        /// Where an accepted body is written as it arrives; nil once dropped.
        var spool: UploadSpool?
        /// The disk refused the body: answered 503 once the body is in.
        var spoolFailed = false
        /// Set when the request is refused before it is read (a host name the studio does not answer to):
        /// the body is read and dropped, then this is the answer.
        var refusal: HTTPResponse?
        var response: HTTPResponse?
        var headersSent = false
        var bodyOffset = 0
        /// The body is complete and the request handed on: lws may report the completion again while the answer
        /// is pending (a pipelined request behind it); it is acted on once.
        var bodyDone = false
        /// Close the connection once this answer is written (after a POST, or when a request came in behind it).
        var closeAfter = false
        /// Bytes of the upload budget this request's body holds until it is answered: what has arrived, not what
        /// was announced (two sockets announcing 64 MB and sending nothing once held every upload off for minutes).
        var reserved = 0
        /// The budget ran out while the body arrived: answered 503 once the body is in.
        var overBudget = false

        init(wsi: OpaquePointer, request: HTTPRequest) {
            self.wsi = wsi
            self.request = request
        }
    }

    private let access: AccessPolicy
    private let answer: @Sendable (HTTPRequest) -> HTTPResponse
    private let uploadLimit: Int
    private let ids: ConnectionIDs
    private let wake: @Sendable () -> Void
    /// Where answers are made. Serial queues each get a thread of their own from libdispatch, whereas concurrent
    /// ones share a pool about as wide as the machine with the render workers: on two cores, three uploads being
    /// decoded kept `/api/stats` waiting past lws's 5 s timeout, and it was closed unanswered (the soak's
    /// "no HTTP response"). So reads (files, stats, health) never queue behind work, and uploads are decoded
    /// one at a time, which also bounds their memory.
    private let reads = DispatchQueue(label: "depthbook.http.reads")
    private let uploads = DispatchQueue(label: "depthbook.http.uploads")
    /// How long an answer may take once its request is in (an upload behind others being decoded, on a busy
    /// machine): lws's own timeout for an HTTP connection is 5 s.
    static let answerSeconds: Int32 = 300
    /// Upload bodies on their way in or being decoded, all connections together: twice the largest upload (each is
    /// on disk until complete, then in memory while it is decoded).
    private let uploadBytes: ByteAllowance
    private let spoolDirectory: String

    // Service thread only.
    private var transactions: [UInt64: Transaction] = [:]
    // Any thread: answers ready to be written.
    private let answered = Locked<[UInt64: HTTPResponse]>([:])

    /// `spoolDirectory` must exist (`UploadSpool.prepare`).
    init(access: AccessPolicy, uploadLimit: Int, spoolDirectory: String, ids: ConnectionIDs,
         wake: @escaping @Sendable () -> Void, answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.access = access
        self.spoolDirectory = spoolDirectory
        self.uploadLimit = uploadLimit
        self.uploadBytes = ByteAllowance(limit: 2 * uploadLimit)
        self.ids = ids
        self.wake = wake
        self.answer = answer
    }

    /// A request's headers arrived: refused at once, answered, or (a POST) waiting for its body.
    func begin(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        let id = ConnectionIDs.stored(user) ?? ids.assign(user)
        // One request, one answer: a request pipelined behind one not yet answered is not read; the connection
        // closes after the answer, and the client sends it again on a new one.
        if let pending = transactions[id] {
            pending.closeAfter = true
            return
        }
        let method: String, path: String
        if let uri = LWSHeaders.value(wsi, WSI_TOKEN_POST_URI) {
            (method, path) = ("POST", uri)
        } else if let uri = LWSHeaders.value(wsi, WSI_TOKEN_GET_URI) {
            (method, path) = ("GET", uri)
        } else if let uri = LWSHeaders.value(wsi, WSI_TOKEN_HEAD_URI) {
            (method, path) = ("HEAD", uri)
        } else {
            let raw = input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "/"
            (method, path) = ("OTHER", raw)
        }
        let query = LWSHeaders.query(wsi)
        let host = LWSHeaders.value(wsi, WSI_TOKEN_HOST)
        let authorized = access.grants(authorization: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
                                       cookie: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_COOKIE), queryToken: query["token"])
        let request = HTTPRequest(method: method, path: path, query: query,
                                  ifNoneMatch: LWSHeaders.value(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH),
                                  authorized: authorized, tokenRequired: access.requiresToken,
                                  linkTokenIsValid: query["token"].map { access.grants(authorization: nil, cookie: nil, queryToken: $0) } ?? true)
        let transaction = Transaction(wsi: wsi, request: request)
        transactions[id] = transaction
        let headerBytes = LWSHeaders.knownLength(wsi)
        if headerBytes > LWSContext.maxHeaderBytes {
            transaction.refusal = .text(431, "request headers are at most \(LWSContext.maxHeaderBytes) bytes, not \(headerBytes)")
        } else if !access.admits(host: host) {
            transaction.refusal = .text(403, access.hostRefusal(host))
        }
        if transaction.refusal != nil {
            transaction.closeAfter = true
            // A POST's body is read and dropped before the answer, when it has one length to be read by.
            let bodyToDrain = method == "POST" && LWSHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) != nil
                && LWSHeaders.value(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) == nil
            if !bodyToDrain {
                transaction.response = transaction.refusal
                lws_callback_on_writable(wsi)
            }
            return
        }
        if method == "POST" {
            // The body must flow; its connection closes after the answer (lws re-reported the completion of a
            // POST with a request pipelined behind it, and the upload was decoded again and again).
            transaction.closeAfter = true
            // A body is read only by its one Content-Length: a chunked body (which lws never completed, so it was
            // never answered) or two lengths (which could disagree with a proxy's reading) are refused unread.
            let length = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)
            if LWSHeaders.value(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil || length == nil {
                transaction.response = .text(411, "an upload needs a Content-Length (chunked bodies are not accepted)")
            } else if lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, 1) > 0 {
                transaction.response = .text(400, "a request has one Content-Length header, not two")
            }
            let announced = length.flatMap(Int.init) ?? 0
            if transaction.response == nil, !authorized {
                // Refused before any of the body is kept: it is read and dropped, and the router says why.
                transaction.unauthorized = true
                return
            }
            if transaction.response == nil, announced <= uploadLimit {
                // Bodies held at once are bounded (a dozen clients trickling 63 MB each held a gigabyte), counted as
                // their bytes arrive (`body`); each must arrive at a least rate: lws closes a connection whose body
                // is still coming after this long.
                lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(Self.uploadSeconds(announced)))
                do {
                    transaction.spool = try UploadSpool(directory: spoolDirectory)
                } catch {
                    transaction.response = .jsonError(503, "the studio cannot store uploads right now")
                }
            }
            if transaction.response != nil {
                lws_callback_on_writable(wsi)
                return
            }
            // An announced oversized body is read and dropped, not kept: clients (and proxies) expect to finish
            // sending before they read the 413, and closing early would break their pipe instead.
            if let announced = LWSHeaders.value(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap(Int.init), announced > uploadLimit {
                transaction.bodyTooLarge = true
            }
            return  // the body arrives in `body` calls
        }
        dispatch(id, request)
    }

    /// Part of a POST's body.
    func body(_ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        guard let id = ConnectionIDs.stored(user), let transaction = transactions[id], let input else { return }
        if transaction.refusal != nil || transaction.response != nil || transaction.unauthorized { return }
        guard let spool = transaction.spool else { return }
        if spool.count + length > uploadLimit {
            transaction.bodyTooLarge = true
        } else if let grant = uploadBytes.reserve(exactly: length) {
            transaction.reserved += grant
            do {
                try spool.append(input, length)
                return
            } catch {
                transaction.spoolFailed = true
            }
        } else {
            transaction.overBudget = true
        }
        spool.discard()
        transaction.spool = nil
        // What it held goes back now: the rest of the body is read and dropped.
        uploadBytes.release(transaction.reserved)
        transaction.reserved = 0
    }

    /// The whole body is in: refused, too large, or answered.
    func bodyComplete(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) {
        guard let id = ConnectionIDs.stored(user), let transaction = transactions[id], transaction.response == nil,
              !transaction.bodyDone else { return }
        transaction.bodyDone = true
        if let refusal = transaction.refusal {
            transaction.response = refusal
            lws_callback_on_writable(wsi)
        } else if transaction.bodyTooLarge {
            transaction.response = .jsonError(413, "uploads are at most \(uploadLimit) bytes")
            lws_callback_on_writable(wsi)
        } else if transaction.spoolFailed {
            transaction.response = .jsonError(503, "the studio cannot store uploads right now")
            lws_callback_on_writable(wsi)
        } else if transaction.overBudget {
            transaction.response = .jsonError(503, "the studio is receiving too many uploads at once; try again shortly")
            lws_callback_on_writable(wsi)
        } else {
            transaction.spool?.seal()
            dispatch(id, transaction.request, bodyAt: transaction.spool?.path)
        }
    }

    func closed(_ user: UnsafeMutableRawPointer?) {
        if let id = ConnectionIDs.stored(user), let transaction = transactions.removeValue(forKey: id) {
            uploadBytes.release(transaction.reserved)
            transaction.spool?.discard()
        }
    }

    /// Seconds a body of `bytes` may take to arrive: 30 s, plus the time at 256 KiB/s.
    static func uploadSeconds(_ bytes: Int) -> Int { 30 + bytes / (256 << 10) }

    /// Answers off the service thread (file reads, reading a spooled body back, decoding uploads), then hands the
    /// response back.
    private func dispatch(_ id: UInt64, _ request: HTTPRequest, bodyAt spoolPath: String? = nil) {
        let answer = self.answer
        if let wsi = transactions[id]?.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.answerSeconds) }
        (request.method == "POST" ? uploads : reads).async { [weak self] in
            var request = request
            var response: HTTPResponse
            if let spoolPath {
                do {
                    request.body = try UploadSpool.readAndRemove(spoolPath)
                    response = answer(request)
                } catch {
                    response = .jsonError(503, "the studio cannot store uploads right now")
                }
            } else {
                response = answer(request)
            }
            guard let self else { return }
            answered.withLock { $0[id] = response }
            wake()
        }
    }

    /// Service thread, woken: the answers ready are written as their sockets allow.
    func serviceWakeups() {
        let ready = answered.withLock { r in defer { r.removeAll() }; return r }
        for (id, response) in ready {
            guard let transaction = transactions[id] else { continue }
            transaction.response = response
            lws_callback_on_writable(transaction.wsi)
        }
    }

    /// Writes the headers, then the body a fragment at a time.
    func writeable(_ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let id = ConnectionIDs.stored(user), let transaction = transactions[id],
              let response = transaction.response else { return 0 }
        let wsi = transaction.wsi
        let isHead = transaction.request.method == "HEAD"
        if !transaction.headersSent {
            let pre = Int(CWS_PRE)
            var buffer = [UInt8](repeating: 0, count: pre + 2048 + 32 + response.headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 8 })
            let failed: Bool = buffer.withUnsafeMutableBufferPointer { raw in
                let start = raw.baseAddress! + pre
                let end = raw.baseAddress! + raw.count
                var p: UnsafeMutablePointer<UInt8>? = start
                if lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                               lws_filepos_t(response.body.count), &p, end) != 0 { return true }
                let headers = response.headers + (transaction.closeAfter ? [("connection", "close")] : [])
                for (name, value) in headers {
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
            if response.body.isEmpty || isHead { return finish(id, transaction) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let offset = transaction.bodyOffset
        let end = min(response.body.count, offset + WebSocketConnections.fragmentBytes)
        let pre = Int(CWS_PRE)
        var buffer = [UInt8](repeating: 0, count: pre + (end - offset))
        buffer.replaceSubrange(pre..<buffer.count, with: response.body[offset..<end])
        let last = end == response.body.count
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, end - offset, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        transaction.bodyOffset = end
        if last { return finish(id, transaction) }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finish(_ id: UInt64, _ transaction: Transaction) -> Int32 {
        transactions[id] = nil
        uploadBytes.release(transaction.reserved)
        transaction.reserved = 0
        transaction.spool?.discard()
        if transaction.closeAfter { return -1 }
        return lws_http_transaction_completed(transaction.wsi) != 0 ? -1 : 0
    }
}

/// Bytes shared out up to a limit (service thread only): a grant is reserved whole or refused.
final class ByteAllowance {
    let limit: Int
    private var held = 0

    init(limit: Int) { self.limit = limit }

    /// Reserves `bytes` or nil when that would pass the limit.
    func reserve(exactly bytes: Int) -> Int? {
        guard bytes >= 0, held + bytes <= limit else { return nil }
        held += bytes
        return bytes
    }

    func release(_ grant: Int) { held -= grant }
}
