import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// An export: one per session at a time, rendered as background work with progress events, written by
/// `ExportWriter`, stopped when the page that asked for it closes.
extension Studio {
    func export(_ export: StudioRequest.Export, id: Int, _ session: Session, connection: ClientConnection,
                        reply: @escaping @Sendable (Result<any Encodable & Sendable, ProtocolError>) -> Void) {
        let writer = ExportWriter(directory: exportsDirectory)
        let progress: @Sendable (Double) -> Void = { fraction in
            connection.sendText(StudioEvent.progress(.init(request: id, fraction: fraction)).message())
        }
        // One export per session at a time; it stops when the page that asked for it is gone.
        guard session.beginExport(InterruptedExport(request: id, export: export), for: connection) else {
            reply(.failure(.badRequest("an export of this session is already running; wait for it to finish")))
            return
        }
        let done: @Sendable (Result<ExportResult, ProtocolError>) -> Void = { [self] result in
            // Stopped because its page left (a reload, a dropped network): the page that takes the session back
            // gets it under the same request id (`ExportHandOver`).
            let stopped = connection.isClosed
            let interrupted = if case .failure = result { stopped } else { false }
            guard let resumed = session.finishExport(interrupted: interrupted) else {
                if !stopped { reply(result.map { $0 }) }
                return
            }
            if interrupted {
                self.export(export, id: id, session, connection: resumed, reply: Self.replier(id: id, resumed))
            } else {
                Self.replier(id: id, resumed)(result.map { $0 })
            }
        }
        session.withRenderer(priority: .long, { notebook, renderer, abandoned in
            guard notebook.notebook.cell(export.cell) != nil else { throw ProtocolError.notFound("no cell \"\(export.cell)\" in the notebook") }
            progress(0)
            let started = ContinuousClock.now
            defer { StudioMetrics.shared.recordRender(.export, since: started) }
            let file = try renderer.export(notebook: notebook, export: export, progress: progress,
                                           isCancelled: { connection.isClosed || abandoned() })
            let written = try writer.write(file, notebook: notebook.notebook.name, cell: export.cell)
            progress(1)
            return written
        }, waiting: { wait in
            connection.sendText(StudioEvent.waiting(.init(request: id, reason: wait.reason)).message())
        }, completion: done)
    }
}

