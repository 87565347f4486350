import DepthbookEffects
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The pages attached to a session: who they are, what they are sent, and the frames kept for those who come later.
extension Session {
    /// Attaches `connection`; an editor taking over demotes a previous editor to watcher.
    /// Returns the frames to replay so the new page shows what the others see.
    func attach(_ connection: ClientConnection, role: SessionRole) {
        let replay: [(RenderSlot, PendingFrameRecord, FrameCurrency)] = state.withLock { s in
            if role == .edit {
                for (key, var other) in s.connections where other.role == .edit {
                    other.role = .watch
                    s.connections[key] = other
                    other.connection.bind(self, role: .watch)
                }
            }
            s.connections[connection.id] = Attached(connection: connection, role: role)
            s.detachedSince = nil
            return s.lastFrames.map { ($0.key, $0.value, s.scheduler.currency(for: $0.key)) }
        }
        connection.bind(self, role: role)
        for (slot, record, currency) in replay {
            connection.sendFrame(PendingFrame(seq: record.seq, bytes: record.bytes) {
                currency.isCurrent(seq: record.seq, coarse: record.coarse)
            }, for: slot)
        }
    }

    /// A page left. With nobody left to see them, renders in flight stop and queued ones never start: a page
    /// that sent a burst and vanished costs nothing more (a page that comes back asks again).
    func detach(_ connection: ClientConnection) {
        let actions: [RenderScheduler.Action] = state.withLock { s in
            s.connections[connection.id] = nil
            guard s.connections.isEmpty else { return [] }
            s.detachedSince = .now
            abandonments.add(1, ordering: .releasing)
            return s.scheduler.dropWork()
        }
        perform(actions)
    }

    /// Sends a text message to every attached connection (or only to those with `role`).
    /// The message is built only when someone will receive it (a slider move with no watcher costs nothing).
    /// With `supersedes`, it replaces an unsent message sent under the same key (`ClientConnection.sendLatest`).
    func broadcast(only role: SessionRole? = nil, except: UInt64? = nil, supersedes key: String? = nil,
                   _ message: () -> [UInt8]) {
        let targets = state.withLock { s in
            s.connections.values.filter { (role == nil || $0.role == role) && $0.connection.id != except }.map(\.connection)
        }
        guard !targets.isEmpty else { return }
        let bytes = message()
        for connection in targets {
            if let key { connection.sendLatest(bytes, key: key) } else { connection.sendText(bytes) }
        }
    }

    /// Ends every render (the session is being dropped).
    func close() {
        let actions = state.withLock { s in
            s.connections.removeAll()
            abandonments.add(1, ordering: .releasing)
            return s.scheduler.cancelAll()
        }
        perform(actions)
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
