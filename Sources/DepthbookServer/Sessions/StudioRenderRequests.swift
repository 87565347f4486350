import DepthbookEffects
import DepthbookProtocol
import Foundation

/// The requests that ask for pictures: a parameter change (the cell and the previewed cells below it), a
/// preview, a full-resolution crop. Each answers `{cell, seq}` and hands the renders to the session.
extension Studio {
    func setParams(_ set: StudioRequest.SetParams, _ session: Session,
                           from connection: ClientConnection) throws -> (CellSeqResult, Session.RenderKickoff) {
        let (requests, notebook) = try session.state.withLock { s in (try s.apply(set), s.notebook) }
        let kickoff = try session.requestRenders(requests)
        session.broadcast(only: .watch, except: connection.id) {
            ReplyEncoder.notebookEvent(notebook)
        }
        return (CellSeqResult(cell: set.cell, seq: set.seq), kickoff)
    }

    func preview(_ preview: StudioRequest.Preview, _ session: Session) throws -> (CellSeqResult, Session.RenderKickoff) {
        try session.state.withLock { s in
            try Self.checkRenderable(preview.cell, in: s.notebook)
            s.previewWidths[preview.cell] = preview.width
        }
        let kickoff = try session.requestRenders([FrameRequest(slot: RenderSlot(cell: preview.cell, kind: .preview), seq: preview.seq,
                                                               target: .preview(width: preview.width),
                                                               interactive: preview.interactive ?? false)])
        return (CellSeqResult(cell: preview.cell, seq: preview.seq), kickoff)
    }

    func crop(_ crop: StudioRequest.Crop, _ session: Session) throws -> (CellSeqResult, Session.RenderKickoff) {
        try session.state.withLock { s in
            try Self.checkRenderable(crop.cell, in: s.notebook)
            // Compared as `x > width − w`, which cannot overflow for any x the decoder lets through.
            if let photo = s.photo, crop.x > photo.width - crop.w || crop.y > photo.height - crop.h {
                throw ProtocolError.badRequest("the crop must lie inside the \(photo.width)×\(photo.height) image")
            }
        }
        let kickoff = try session.requestRenders([FrameRequest(slot: RenderSlot(cell: crop.cell, kind: .crop), seq: crop.seq,
                                                               target: .crop(x: crop.x, y: crop.y, width: crop.w, height: crop.h))])
        return (CellSeqResult(cell: crop.cell, seq: crop.seq), kickoff)
    }

    static func checkRenderable(_ cell: String, in notebook: Notebook?) throws {
        guard let notebook else { throw ProtocolError.badRequest("open a notebook first") }
        if photoPlanes.contains(cell) { return }
        guard let found = notebook.cell(cell) else { throw ProtocolError.notFound("no cell or photo plane \"\(cell)\" in the notebook") }
        guard found.kind.rendersImage else {
            throw ProtocolError.badRequest("cell \"\(cell)\" is a \(found.kindName) cell and has no image")
        }
    }
}
