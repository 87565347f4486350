import DepthbookEngine
import DepthbookMessages
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

/// One page's WebSocket as the sessions see it: an outbox the transport drains, and the session it is bound to.
///
/// Replies and events are kept in order and all go out, except one a newer message under the same key made
/// stale (`sendLatest`: a watcher's notebook state during a drag). Frames are kept one per slot: a newer frame for a
/// cell replaces an unsent one, so a slow client gets fewer frames, never a growing queue.
public final class ClientConnection: Sendable {
    public let id: UInt64
    public let access: ConnectionAccess
    /// Requests from this connection are handled in order, off the network thread.
    let requests: DispatchQueue
    private let outbox = Locked(Outbox())
    private let wake: @Sendable (UInt64) -> Void
    private let binding = Locked<Binding?>(nil)
    private let closed = Atomic<Bool>(false)
    /// Bytes of this connection's messages received and not yet handled.
    private let waitingRequestBytes = Atomic<Int>(0)
    /// Most bytes of requests that may wait unhandled per connection (four of the largest message): a client
    /// that sends faster than its requests are answered is closed instead of queueing without bound
    /// (1,000 messages of 1 MiB once took the server from 110 MB to a gigabyte).
    static let waitingRequestLimit = 4 << 20

    struct Binding: Sendable {
        var session: Session
        var role: SessionRole
    }

    /// A text message waiting, and the key under which a newer message makes it stale (nil: it always goes out).
    private struct Text: Sendable {
        var bytes: [UInt8]
        var supersededBy: String?
    }

    private struct Outbox: Sendable {
        var texts: [Text] = []
        /// Bytes waiting, texts and frames together.
        var bytes = 0
        /// Set once the client fell too far behind: everything is dropped and the socket is to be closed.
        var cutOff = false
        var frames: [RenderSlot: PendingFrame] = [:]
        /// Slots with a waiting frame, oldest first.
        var order: [RenderSlot] = []
        var framesReplaced = 0
    }

    /// `wake` tells the transport this connection has something to send (it may be called on any thread).
    /// Bytes that may wait for this client before it is cut off (a page that stopped reading).
    public let outboxLimit: Int

    public init(id: UInt64, access: ConnectionAccess = .full, outboxLimit: Int = 32 << 20,
                wake: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.access = access
        self.outboxLimit = outboxLimit
        self.wake = wake
        self.requests = DispatchQueue(label: "depthbook.connection.\(id)")
    }

    /// Counts a received message of `bytes` as waiting; false (nothing counted) when that would pass the limit.
    func admitRequest(bytes: Int) -> Bool {
        let after = waitingRequestBytes.add(bytes, ordering: .relaxed).newValue
        if after > Self.waitingRequestLimit {
            waitingRequestBytes.subtract(bytes, ordering: .relaxed)
            return false
        }
        return true
    }

    /// A message counted by `admitRequest` was handled.
    func requestHandled(bytes: Int) {
        waitingRequestBytes.subtract(bytes, ordering: .relaxed)
    }

    public func sendText(_ bytes: [UInt8]) {
        sendText(bytes, supersededBy: nil)
    }

    /// Queues a text message that makes any unsent one sent under the same `key` stale: that one is dropped, and
    /// this one goes after the messages queued before it. A watcher hears every slider move as the whole
    /// notebook; a hundred of them at 60 moves a second queued megabytes a second of states already replaced.
    public func sendLatest(_ bytes: [UInt8], key: String) {
        sendText(bytes, supersededBy: key)
    }

    private func sendText(_ bytes: [UInt8], supersededBy key: String?) {
        outbox.withLock { box in
            guard !box.cutOff else { return }
            if let key {
                box.bytes -= box.texts.reduce(0) { $0 + ($1.supersededBy == key ? $1.bytes.count : 0) }
                box.texts.removeAll { $0.supersededBy == key }
            }
            box.texts.append(Text(bytes: bytes, supersededBy: key))
            box.bytes += bytes.count
            Self.cutOffIfOver(&box, limit: outboxLimit)
        }
        wake(id)
    }

    /// A client that lets more than the limit pile up is not reading: it gets nothing more and is closed.
    private static func cutOffIfOver(_ box: inout Outbox, limit: Int) {
        guard box.bytes > limit else { return }
        box.cutOff = true
        box.texts = []
        box.frames = [:]
        box.order = []
        box.bytes = 0
    }

    /// Whether the client fell so far behind that the transport should close it.
    public var isCutOff: Bool { outbox.withLock { $0.cutOff } }

    /// Queues a frame for `slot`, replacing any unsent one for the same slot.
    public func sendFrame(_ frame: PendingFrame, for slot: RenderSlot) {
        outbox.withLock { box in
            guard !box.cutOff else { return }
            box.bytes += frame.bytes.count
            if let replaced = box.frames.updateValue(frame, forKey: slot) {
                box.bytes -= replaced.bytes.count
                box.framesReplaced += 1
            } else {
                box.order.append(slot)
            }
            Self.cutOffIfOver(&box, limit: outboxLimit)
        }
        wake(id)
    }

    /// The next message to write: replies and events first, then frames that are still current.
    public func nextMessage() -> OutgoingMessage? {
        while true {
            let next: (text: [UInt8]?, frame: PendingFrame?)? = outbox.withLock { box in
                if !box.texts.isEmpty {
                    let text = box.texts.removeFirst().bytes
                    box.bytes -= text.count
                    return (text, nil)
                }
                while !box.order.isEmpty {
                    let slot = box.order.removeFirst()
                    if let frame = box.frames.removeValue(forKey: slot) {
                        box.bytes -= frame.bytes.count
                        return (nil, frame)
                    }
                }
                return nil
            }
            guard let next else { return nil }
            if let text = next.text { return .text(text) }
            // The session's published currency for the slot (`FrameCurrency`): no lock is taken.
            if let frame = next.frame, frame.isCurrent() { return .binary(frame.bytes) }
        }
    }

    public var hasOutput: Bool { outbox.withLock { !$0.texts.isEmpty || !$0.order.isEmpty } }

    /// Frames that a newer frame replaced before they could be sent (a slow client's saving).
    public var framesReplaced: Int { outbox.withLock { $0.framesReplaced } }

    /// Whether the socket closed (work done only for this connection, like an export, may stop).
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    func markClosed() { closed.store(true, ordering: .releasing) }

    var currentBinding: Binding? { binding.withLock { $0 } }

    func bind(_ session: Session, role: SessionRole) { binding.withLock { $0 = Binding(session: session, role: role) } }

    func unbind() -> Binding? { binding.withLock { b in defer { b = nil }; return b } }

    /// Sessions this connection made, oldest first (`SessionHub.create`).
    private let createdSessions = Locked<[String]>([])

    /// Before this connection makes another session: the ids of those it made that must make room, so that
    /// it keeps at most `limit - 1` besides the new one.
    func recordCreatedSession(limit: Int) -> [String] {
        createdSessions.withLock { ids in
            let excess = max(0, ids.count - (limit - 1))
            defer { ids.removeFirst(excess) }
            return Array(ids.prefix(excess))
        }
    }

    /// This connection made the session `id`.
    func created(_ id: String) { createdSessions.withLock { $0.append(id) } }
}
