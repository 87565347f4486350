import Dispatch
import Synchronization

/// A message waiting to go out on one WebSocket.
public enum OutgoingMessage: Sendable {
    case text([UInt8])
    case binary([UInt8])
}

/// A rendered frame waiting in a connection's outbox, with a check that it is still the newest for its slot.
public struct PendingFrame: Sendable {
    public var seq: Int
    public var bytes: [UInt8]
    /// Asked again just before sending: a frame overtaken by a newer request is dropped, never sent.
    public var isCurrent: @Sendable () -> Bool

    public init(seq: Int, bytes: [UInt8], isCurrent: @escaping @Sendable () -> Bool) {
        self.seq = seq
        self.bytes = bytes
        self.isCurrent = isCurrent
    }
}

/// What a connection's client proved when it connected: the access token (or none was needed), or not.
public enum ConnectionAccess: String, Sendable, Codable {
    /// May do everything its role allows.
    case full
    /// No token: may open notebooks and look at their renders, never upload, edit, save or export.
    case read
}

/// What a connection is allowed to do in its session.
public enum SessionRole: String, Sendable, Codable {
    case edit
    case watch
}

/// One page's WebSocket as the sessions see it: an outbox the transport drains, and the session it is bound to.
///
/// Replies and events are kept in order and all go out. Frames are kept one per slot: a newer frame for a
/// cell replaces an unsent one, so a slow client gets fewer frames, never a growing queue.
public final class ClientConnection: Sendable {
    public let id: UInt64
    public let access: ConnectionAccess
    /// Requests from this connection are handled in order, off the network thread.
    let requests: DispatchQueue
    private let outbox = Mutex(Outbox())
    private let wake: @Sendable (UInt64) -> Void
    private let binding = Mutex<Binding?>(nil)

    struct Binding: Sendable {
        var session: Session
        var role: SessionRole
    }

    private struct Outbox: Sendable {
        var texts: [[UInt8]] = []
        var frames: [RenderSlot: PendingFrame] = [:]
        /// Slots with a waiting frame, oldest first.
        var order: [RenderSlot] = []
        var framesReplaced = 0
    }

    /// `wake` tells the transport this connection has something to send (it may be called on any thread).
    public init(id: UInt64, access: ConnectionAccess = .full, wake: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.access = access
        self.wake = wake
        self.requests = DispatchQueue(label: "depthbook.connection.\(id)")
    }

    public func sendText(_ bytes: [UInt8]) {
        outbox.withLock { $0.texts.append(bytes) }
        wake(id)
    }

    /// Queues a frame for `slot`, replacing any unsent one for the same slot.
    public func sendFrame(_ frame: PendingFrame, for slot: RenderSlot) {
        outbox.withLock { box in
            if box.frames.updateValue(frame, forKey: slot) == nil {
                box.order.append(slot)
            } else {
                box.framesReplaced += 1
            }
        }
        wake(id)
    }

    /// The next message to write: replies and events first, then frames that are still current.
    public func nextMessage() -> OutgoingMessage? {
        while true {
            let next: (text: [UInt8]?, frame: PendingFrame?)? = outbox.withLock { box in
                if !box.texts.isEmpty { return (box.texts.removeFirst(), nil) }
                while !box.order.isEmpty {
                    let slot = box.order.removeFirst()
                    if let frame = box.frames.removeValue(forKey: slot) { return (nil, frame) }
                }
                return nil
            }
            guard let next else { return nil }
            if let text = next.text { return .text(text) }
            // Checked outside the outbox lock: the check takes the session's lock.
            if let frame = next.frame, frame.isCurrent() { return .binary(frame.bytes) }
        }
    }

    public var hasOutput: Bool { outbox.withLock { !$0.texts.isEmpty || !$0.order.isEmpty } }

    /// Frames that a newer frame replaced before they could be sent (a slow client's saving).
    public var framesReplaced: Int { outbox.withLock { $0.framesReplaced } }

    var currentBinding: Binding? { binding.withLock { $0 } }

    func bind(_ session: Session, role: SessionRole) { binding.withLock { $0 = Binding(session: session, role: role) } }

    func unbind() -> Binding? { binding.withLock { b in defer { b = nil }; return b } }
}
