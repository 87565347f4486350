import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The studio behind the socket: answers each request of a connection with exactly one reply, and drives
/// the session's renders. Transport-free: it sees connections and bytes, never a socket.
public final class Studio: Sendable {
    public let hub: SessionHub
    let backend: any StudioBackend
    let store: any NotebookStore
    /// Saves run here, one at a time, off the connections' queues (see `save`).
    let storeWrites = DispatchQueue(label: "depthbook.store-writes")
    let bundled: BundledNotebooks
    let exportsDirectory: String
    let serverName: String
    /// The bounds `hello` sends: the protocol's, with this studio's upload limit.
    let limits: Limits

    public init(backend: any StudioBackend, store: any NotebookStore, bundled: BundledNotebooks, hub: SessionHub,
                exportsDirectory: String, version: String, uploadLimitBytes: Int = Limits.studio.maxUploadBytes) {
        var limits = Limits.studio
        limits.maxUploadBytes = uploadLimitBytes
        self.limits = limits
        self.backend = backend
        self.store = store
        self.bundled = bundled
        self.hub = hub
        self.exportsDirectory = exportsDirectory
        self.serverName = "depthbook \(version)"
    }

    /// A text message arrived on `connection`. Runs on the connection's own queue, in arrival order.
    public func receive(text bytes: [UInt8], from connection: ClientConnection) {
        guard bytes.count <= RequestDecoder.maxMessageBytes else {
            connection.sendText(ReplyEncoder.failure(id: nil, error: ProtocolError(
                .tooLarge, "a message is at most \(RequestDecoder.maxMessageBytes) bytes, this one had \(bytes.count)")))
            return
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            connection.sendText(ReplyEncoder.failure(id: nil, error: .badRequest("a text message must be valid UTF-8")))
            return
        }
        let readOnly = connection.access == .read
        let (id, decoded) = RequestDecoder.decode(bytes) { kind in !readOnly || !kind.requiresToken }
        switch decoded {
        case .failure(let error):
            connection.sendText(ReplyEncoder.failure(id: id, error: error))
        case .success(let request):
            // `decode` only succeeds with an id.
            guard let id else { return }
            handle(request, id: id, from: connection)
        }
    }

    /// A binary message from the page: the protocol has none, so it gets an error reply.
    public func receive(binary bytes: [UInt8], from connection: ClientConnection) {
        connection.sendText(ReplyEncoder.failure(id: nil, error: .badRequest(
            "the page sends JSON text messages only; a \(bytes.count)-byte binary message was ignored")))
    }

    /// A message over the size limit, dropped unread.
    public func receiveOversized(bytes: Int, from connection: ClientConnection) {
        connection.sendText(ReplyEncoder.failure(id: nil, error: ProtocolError(
            .tooLarge, "a message is at most \(RequestDecoder.maxMessageBytes) bytes, this one had at least \(bytes)")))
    }

    /// The socket closed: the session stays for its grace period.
    public func disconnected(_ connection: ClientConnection) {
        connection.markClosed()
        connection.unbind()?.session.detach(connection)
    }

    // MARK: Requests

    private func handle(_ request: StudioRequest, id: Int, from connection: ClientConnection) {
        let reply = Self.replier(id: id, connection)
        if case .hello(let hello) = request {
            do {
                let (result, interrupted) = try self.hello(hello, connection)
                reply(.success(result))
                // After the hello's reply, so the page knows the export before its news arrives.
                if let interrupted, interrupted.runAgain, let session = connection.currentBinding?.session {
                    export(interrupted.export.export, id: interrupted.export.request, session, connection: connection,
                           reply: Self.replier(id: interrupted.export.request, connection))
                }
            } catch {
                reply(.failure(Self.protocolError(error)))
            }
            return
        }
        guard let binding = connection.currentBinding else {
            reply(.failure(.badRequest("send \"hello\" first")))
            return
        }
        let session = binding.session
        if binding.role == .watch, request.kind.edits {
            reply(.failure(.forbidden("this page watches the session view-only; it cannot change it")))
            return
        }
        switch request {
        case .hello: break
        case .listSamples:
            reply(Result { SamplesResult(samples: try self.backend.samples()) }.mapError(Self.protocolError))
        case .listNotebooks:
            reply(.success(NotebooksResult(notebooks: bundled.entries)))
        case .effects:
            reply(.success(EffectsResult(effects: backend.effectCatalog())))
        case .openNotebook(let open):
            reply(Result { try self.openNotebook(open, session) }.mapError(Self.protocolError))
        case .openPhoto(let open):
            reply(Result { try self.openPhoto(open.photo, session) }.mapError(Self.protocolError))
        case .setNotebook(let set):
            reply(Result { try self.setNotebook(set.notebook, session, from: connection) }.mapError(Self.protocolError))
        case .setParams(let set):
            replyThenRender(reply) { try self.setParams(set, session, from: connection) }
        case .preview(let preview):
            replyThenRender(reply) { try self.preview(preview, session) }
        case .crop(let crop):
            replyThenRender(reply) { try self.crop(crop, session) }
        case .histogram(let histogram):
            session.histogram(reference: histogram.cell, bins: histogram.bins) { result in reply(result.map { $0 }) }
        case .save:
            save(session) { result in reply(result.map { $0 }) }
        case .export(let export):
            self.export(export, id: id, session, connection: connection, reply: reply)
        case .checkFormula(let check):
            guard let notebook = session.shown.notebook else {
                reply(.failure(.badRequest("open a notebook first")))
                return
            }
            reply(.success(CheckFormulaResult(Formula.analyse(check.formula, in: notebook.notebook, before: check.cell))))
        }
    }

    /// Replies first, then starts the renders, so `{cell, seq}` always precedes the frames answering it.
    private func replyThenRender(_ reply: @Sendable (Result<any Encodable & Sendable, ProtocolError>) -> Void,
                                 _ body: () throws -> (any Encodable & Sendable, Session.RenderKickoff)) {
        do {
            let (result, kickoff) = try body()
            reply(.success(result))
            kickoff.start()
        } catch {
            reply(.failure(Self.protocolError(error)))
        }
    }

    /// Sends the reply to request `id` on `connection`.
    static func replier(id: Int, _ connection: ClientConnection) -> @Sendable (Result<any Encodable & Sendable, ProtocolError>) -> Void {
        { result in
            switch result {
            case .success(let value): connection.sendText(ReplyEncoder.ok(id: id, result: value))
            case .failure(let error): connection.sendText(ReplyEncoder.failure(id: id, error: error))
            }
        }
    }

    /// The hello's answer, and the export the resumed session's last page left unfinished (run again next).
    private func hello(_ hello: StudioRequest.Hello, _ connection: ClientConnection) throws
        -> (HelloResult, (export: InterruptedExport, runAgain: Bool)?) {
        if let previous = connection.unbind() { previous.session.detach(connection) }
        let session: Session, role: SessionRole, resumed: Bool
        if let watched = hello.watch {
            guard let found = hub.find(watched) else { throw ProtocolError.notFound("no session \"\(watched)\" to watch") }
            (session, role, resumed) = (found, .watch, false)
        } else if let wanted = hello.session, let found = hub.find(wanted), let key = hello.resume, found.resume(withKey: key) != nil {
            (session, role, resumed) = (found, .edit, true)
        } else {
            (session, role, resumed) = (try hub.create(for: connection), .edit, false)
        }
        // One step: what the page finds is what the session showed as it attached.
        let arrival = session.attach(connection, role: role, resuming: resumed)
        let interrupted = arrival.interrupted
        // The key as it is now: a resume has just replaced the one presented.
        let result = HelloResult(session: session.id, resume: role == .edit ? arrival.resumeKey : nil, protocol: StudioRequest.Hello.version, server: serverName,
                                 resumed: resumed, role: role, access: connection.access, limits: limits, planes: PhotoReferences.all,
                                 notebook: arrival.notebook?.notebook, graph: arrival.notebook?.graph, photo: arrival.photo?.facts, shared: arrival.shared,
                                 export: interrupted.map { ResumedExport(request: $0.export.request, cell: $0.export.export.cell, format: $0.export.export.format) })
        return (result, interrupted)
    }

    // MARK: Helpers

    static func protocolError(_ error: any Error) -> ProtocolError {
        switch error {
        case let error as ProtocolError: return error
        case let error as NotebookError: return .badRequest(error.description)
        case let error as StoreError: return ProtocolError(.internal, error.description)
        default: return ProtocolError(.unsupported, Session.message(for: error))
        }
    }
}

