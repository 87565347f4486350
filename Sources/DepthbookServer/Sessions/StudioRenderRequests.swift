import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The requests that ask for pictures: a parameter change (the cell and the previewed cells below it), a
/// preview, a full-resolution crop. Each answers `{cell, seq}` and hands the renders to the session.
extension Studio {
    func setParams(_ set: StudioRequest.SetParams, _ session: Session,
                   from connection: ClientConnection) throws -> (SetParamsResult, Session.RenderKickoff) {
        let (requests, notebook, kickoff) = try session.apply(set)
        // Only the newest state matters to a watcher that has not been sent the previous ones yet.
        session.broadcast(only: .watch, except: connection.id, supersedes: "params") {
            StudioEvent.notebook(.init(notebook: notebook?.notebook, graph: notebook?.graph)).message()
        }
        let renders = requests.map { CellSeqResult(cell: $0.slot.cell, seq: $0.seq) }
        let linked = (notebook?.membersLinked(to: set.cell, names: Array(set.params.keys) + (set.unset ?? [])) ?? []).map {
            LinkedValue(cell: $0.cell, name: $0.name, value: notebook?.notebook.cell($0.cell)?.params?[$0.name])
        }
        return (SetParamsResult(cell: set.cell, seq: set.seq, renders: renders, linked: linked), kickoff)
    }

    func preview(_ preview: StudioRequest.Preview, _ session: Session) throws -> (CellSeqResult, Session.RenderKickoff) {
        let kickoff = try session.preview(FrameRequest(slot: RenderSlot(cell: preview.cell, kind: .preview), seq: preview.seq,
                                                       target: .preview(width: preview.width),
                                                       interactive: preview.interactive ?? false))
        return (CellSeqResult(cell: preview.cell, seq: preview.seq), kickoff)
    }

    func crop(_ crop: StudioRequest.Crop, _ session: Session) throws -> (CellSeqResult, Session.RenderKickoff) {
        let kickoff = try session.crop(FrameRequest(slot: RenderSlot(cell: crop.cell, kind: .crop), seq: crop.seq,
                                                    target: .crop(x: crop.x, y: crop.y, width: crop.w, height: crop.h)))
        return (CellSeqResult(cell: crop.cell, seq: crop.seq), kickoff)
    }
}
