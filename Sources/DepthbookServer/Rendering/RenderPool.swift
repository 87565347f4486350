import Dispatch
import Synchronization

/// A bounded pool that runs renders off the network thread, shared fairly between sessions.
///
/// At most `width` renders run at once, and at most one per owner (a session): the engine already spreads
/// one render over every core, and one render per session keeps a session's renderer single-threaded from
/// the server's side. Among owners with queued work, the one served least recently goes next, so one busy
/// session cannot starve the others however many jobs it queues. Within a session, frames go before
/// background work (histograms, exports), so a chart or a download never delays the picture a slider moves.
public final class RenderPool: Sendable {
    public typealias Owner = UInt64

    public enum Priority: Sendable {
        /// A preview or crop someone is looking at.
        case frame
        /// Work nobody watches frame by frame: histograms, exports.
        case background
    }

    private struct Job: Sendable {
        var priority: Priority
        var work: @Sendable () -> Void
    }

    private struct State: Sendable {
        var queues: [Owner: [Job]] = [:]
        /// When each owner last had a job started (a counter, not a clock); owners never served count as 0.
        var lastServed: [Owner: UInt64] = [:]
        var tick: UInt64 = 0
        var busy: Set<Owner> = []
        var running = 0
        var finished: UInt64 = 0
    }

    public let width: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "depthbook.render", qos: .userInitiated, attributes: .concurrent)

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Queues `work` for `owner`; it runs when a slot is free and it is that owner's turn.
    public func submit(owner: Owner, priority: Priority = .frame, _ work: @escaping @Sendable () -> Void) {
        state.withLock { s in s.queues[owner, default: []].append(Job(priority: priority, work: work)) }
        pump()
    }

    /// Drops what the pool remembers of an owner that is gone (its queued jobs still run).
    public func forget(owner: Owner) {
        state.withLock { s in if s.queues[owner] == nil { s.lastServed[owner] = nil } }
    }


    /// Jobs finished since the pool was made, when nothing runs or waits; nil while busy.
    public var finishedWhenIdle: UInt64? {
        state.withLock { s in s.running == 0 && s.queues.isEmpty ? s.finished : nil }
    }

    /// Whether owners other than `owner` have work running or waiting, or had a job among the last few
    /// started: the machine is shared these days, not just at this instant.
    public func othersBusy(than owner: Owner) -> Bool {
        state.withLock { s in
            s.queues.keys.contains { $0 != owner } || s.busy.contains { $0 != owner }
                || s.lastServed.contains { $0.key != owner && $0.value + UInt64(4 * width) > s.tick }
        }
    }

    /// Jobs queued and not yet started, over all owners.
    public var queuedCount: Int { state.withLock { $0.queues.values.reduce(0) { $0 + $1.count } } }

    /// Starts as many queued jobs as the limits allow, taking owners in turn.
    private func pump() {
        while let (owner, work) = takeNext() {
            queue.async { [self] in
                work()
                state.withLock { s in
                    s.running -= 1
                    s.finished += 1
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
            let next = jobs.firstIndex { $0.priority == .frame } ?? 0
            let work = jobs.remove(at: next).work
            s.queues[owner] = jobs.isEmpty ? nil : jobs
            s.tick += 1
            s.lastServed[owner] = s.tick
            s.busy.insert(owner)
            s.running += 1
            return (owner, work)
        }
    }
}
