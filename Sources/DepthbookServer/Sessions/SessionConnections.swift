import DepthbookEffects
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The pages attached to a session: who they are, what they are sent, and the frames kept for those who come later.
extension Session {
    /// What a page that attaches finds: the notebook and photo shown, the saved version it is, the editor's key
    /// as it is now, and (for a page resuming the session) the export its previous page left.
    struct Arrival: Sendable {
        var notebook: CheckedNotebook?
        var photo: OpenPhoto?
        var shared: String?
        var resumeKey: String
        var interrupted: (export: InterruptedExport, runAgain: Bool)?
    }

    /// Attaches `connection`, in one step with what it finds; an editor taking over demotes a previous editor to
    /// watcher. The frames the others see are replayed to it. `resuming`: it took the session back with its key,
    /// and is handed the export its previous page left.
    func attach(_ connection: ClientConnection, role: SessionRole, resuming: Bool = false) -> Arrival {
        execute { $0.attach(connection, role: role, resuming: resuming) }
    }

    /// A page left. With nobody left to see them, renders in flight stop and queued ones never start: a page
    /// that sent a burst and vanished costs nothing more (a page that comes back asks again).
    func detach(_ connection: ClientConnection) {
        let everyoneLeft = execute { $0.detach(connection) }
        if everyoneLeft { abandonments.add(1, ordering: .releasing) }
    }

    /// Sends a text message to every attached connection (or only to those with `role`).
    /// The message is built only when someone will receive it (a slider move with no watcher costs nothing).
    /// With `supersedes`, it replaces an unsent message sent under the same key (`ClientConnection.sendLatest`).
    func broadcast(only role: SessionRole? = nil, except: UInt64? = nil, supersedes key: String? = nil,
                   _ message: () -> [UInt8]) {
        let targets = read { $0.connections(only: role, except: except) }
        guard !targets.isEmpty else { return }
        let bytes = message()
        for connection in targets {
            if let key { connection.sendLatest(bytes, key: key) } else { connection.sendText(bytes) }
        }
    }

    /// Ends every render (the session is being dropped).
    func close() {
        execute { s in
            s.connections.removeAll()
            return SessionStep(reply: (), actions: s.carryOut(s.scheduler.cancelAll()))
        }
        abandonments.add(1, ordering: .releasing)
        pool.forget(owner: owner)
    }

    /// Lets the oldest kept frames go until the rest fit in `limit` bytes (the newest always stays).
    static func trimKeptFrames(_ frames: inout [RenderSlot: PendingFrameRecord], to limit: Int) {
        var total = frames.values.reduce(0) { $0 + $1.bytes.count }
        while total > limit, frames.count > 1, let oldest = frames.min(by: { $0.value.stamp < $1.value.stamp }) {
            total -= oldest.value.bytes.count
            frames[oldest.key] = nil
        }
    }
}

extension Session.State {
    /// A page attached: the editor before it (if it comes to edit) becomes a watcher, and it is bound, then sent
    /// the frames kept, each checked against its slot's currency as it goes out.
    mutating func attach(_ connection: ClientConnection, role: SessionRole, resuming: Bool) -> SessionStep<Session.Arrival> {
        var actions: [SessionAction] = []
        if role == .edit {
            for (key, var other) in connections where other.role == .edit {
                other.role = .watch
                connections[key] = other
                actions.append(.bind(other.connection, .watch))
            }
        }
        connections[connection.id] = Session.Attached(connection: connection, role: role)
        detachedSince = nil
        actions.append(.bind(connection, role))
        for (slot, record) in lastFrames {
            let currency = scheduler.currency(for: slot)
            actions.append(.sendFrame(PendingFrame(seq: record.seq, bytes: record.bytes) {
                currency.isCurrent(seq: record.seq, coarse: record.coarse)
            }, slot, to: [connection]))
        }
        let interrupted = resuming ? export.handOver(to: connection) : nil
        return SessionStep(reply: Session.Arrival(notebook: notebook, photo: photo, shared: shared, resumeKey: resumeKey,
                                                  interrupted: interrupted), actions: actions)
    }

    /// A page left; true when it was the last, and the work nobody waits for any more is dropped.
    mutating func detach(_ connection: ClientConnection) -> SessionStep<Bool> {
        connections[connection.id] = nil
        guard connections.isEmpty else { return SessionStep(reply: false) }
        detachedSince = .now
        return SessionStep(reply: true, actions: carryOut(scheduler.dropWork()))
    }
}
