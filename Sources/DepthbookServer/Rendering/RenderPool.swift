import Dispatch
import Synchronization

/// A bounded pool that runs renders off the network thread, shared fairly between sessions.
///
/// At most `width` renders run at once, and at most one per owner (a session): the engine already spreads
/// one render over every core, and one render per session keeps a session's renderer single-threaded from
/// the server's side. Among owners with queued work, the one served least recently goes next, so one busy
/// session cannot starve the others however many jobs it queues.
public final class RenderPool: Sendable {
    public typealias Owner = UInt64

    private struct State: Sendable {
        var queues: [Owner: [@Sendable () -> Void]] = [:]
        /// When each owner last had a job started (a counter, not a clock); owners never served count as 0.
        var lastServed: [Owner: UInt64] = [:]
        var tick: UInt64 = 0
        var busy: Set<Owner> = []
        var running = 0
    }

    public let width: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "depthbook.render", qos: .userInitiated, attributes: .concurrent)

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Queues `work` for `owner`; it runs when a slot is free and it is that owner's turn.
    public func submit(owner: Owner, _ work: @escaping @Sendable () -> Void) {
        state.withLock { s in s.queues[owner, default: []].append(work) }
        pump()
    }

    /// Drops what the pool remembers of an owner that is gone (its queued jobs still run).
    public func forget(owner: Owner) {
        state.withLock { s in if s.queues[owner] == nil { s.lastServed[owner] = nil } }
    }

    /// Whether at least as many jobs wait as there are workers (others' renders are queueing).
    public var isSaturated: Bool { queuedCount >= width }

    /// Jobs queued and not yet started, over all owners.
    public var queuedCount: Int { state.withLock { $0.queues.values.reduce(0) { $0 + $1.count } } }

    /// Starts as many queued jobs as the limits allow, taking owners in turn.
    private func pump() {
        while let (owner, work) = takeNext() {
            queue.async { [self] in
                work()
                state.withLock { s in
                    s.running -= 1
                    s.busy.remove(owner)
                }
                pump()
            }
        }
    }

    private func takeNext() -> (Owner, @Sendable () -> Void)? {
        state.withLock { s in
            guard s.running < width else { return nil }
            let waiting = s.queues.keys.filter { !s.busy.contains($0) }
            guard let owner = waiting.min(by: { (s.lastServed[$0] ?? 0, $0) < (s.lastServed[$1] ?? 0, $1) }) else { return nil }
            var jobs = s.queues[owner] ?? []
            let work = jobs.removeFirst()
            s.queues[owner] = jobs.isEmpty ? nil : jobs
            s.tick += 1
            s.lastServed[owner] = s.tick
            s.busy.insert(owner)
            s.running += 1
            return (owner, work)
        }
    }
}
