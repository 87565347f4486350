import DepthbookEngine
import Dispatch

/// A bounded pool that runs renders off the network thread, shared fairly between sessions.
///
/// At most `width` renders run at once, and at most one per owner (a session): the engine already spreads
/// one render over every core, and one render per session keeps a session's renderer single-threaded from
/// the server's side. Among owners with queued work, the one served least recently goes next, so one busy
/// session cannot starve the others however many jobs it queues. Within a session, frames go before
/// background work (histograms, exports), so a chart or a download never delays the picture a slider moves;
/// across sessions, an owner with only background work (a histogram, a drag's preparation) waits until no
/// owner has a frame or long work queued, and settled frames (a slider let go) go before all, oldest first.
public final class RenderPool: Sendable {
    public typealias Owner = UInt64

    public enum Priority: Sendable {
        /// The full frame of a request made at rest (a slider let go, a cell opened): the picture a person now
        /// waits for. It goes before everyone's drag frames: in turn among twenty sessions dragging, each one's
        /// final frame waited for a round of the others' coarse frames, and the result's for a second round
        /// behind the slider's own cell (issue 41).
        case settled
        /// A preview or crop someone is looking at.
        case frame
        /// Work nobody watches frame by frame: histograms, a drag's preparation.
        case background
        /// Work that holds a worker for seconds to a minute (exports). At most `width - 1` run at once, so one
        /// worker is always there for everyone's frames: two sessions exporting a 120-frame GIF each once held
        /// both workers, and another person's slider waited 15.8 s (p50) instead of 2 ms.
        case long
    }

    private struct Job: Sendable {
        var id: UInt64
        var priority: Priority
        var work: @Sendable () -> Void
    }

    /// Why a job just submitted has not started: what a page is told while its export waits.
    public enum Wait: Sendable, Equatable {
        /// The same session's previous job is still running (one job per session at a time).
        case ownSessionBusy
        /// Long work, and every long slot holds another job: frames keep the last worker.
        case longSlotsTaken(running: Int)
        /// Every worker is rendering.
        case workersBusy(running: Int)

        public var reason: String {
            switch self {
            case .ownSessionBusy:
                "waiting for this session's render in progress"
            case .longSlotsTaken(let running):
                "waiting for \(running) other export\(running == 1 ? "" : "s") or crop\(running == 1 ? "" : "s") to finish: one worker is kept for everyone's previews"
            case .workersBusy(let running):
                "waiting for a free worker: all \(running) are rendering"
            }
        }
    }

    /// Long jobs that may run at once: all but one worker (one, with a single worker).
    public var longWidth: Int { max(1, width - 1) }

    private struct State: Sendable {
        var queues: [Owner: [Job]] = [:]
        /// When each owner last had a job started (a counter, not a clock); owners never served count as 0.
        var lastServed: [Owner: UInt64] = [:]
        var tick: UInt64 = 0
        var busy: Set<Owner> = []
        var running = 0
        /// Of `running`, how many are `.long`.
        var runningLong = 0
        var finished: UInt64 = 0
        var nextJob: UInt64 = 0
    }

    public let width: Int
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "depthbook.render", qos: .userInitiated, attributes: .concurrent)

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Queues `work` for `owner`; it runs when a slot is free and it is that owner's turn. Returns why it
    /// waits, or nil when it has started (or already run).
    @discardableResult
    public func submit(owner: Owner, priority: Priority = .frame, _ work: @escaping @Sendable () -> Void) -> Wait? {
        let id = state.withLock { s in
            s.nextJob += 1
            s.queues[owner, default: []].append(Job(id: s.nextJob, priority: priority, work: work))
            return s.nextJob
        }
        pump()
        return state.withLock { s in
            guard s.queues[owner]?.contains(where: { $0.id == id }) == true else { return nil }
            if s.busy.contains(owner) { return .ownSessionBusy }
            if priority == .long && s.runningLong >= longWidth { return .longSlotsTaken(running: s.runningLong) }
            return .workersBusy(running: s.running)
        }
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
        while let (owner, work, long) = takeNext() {
            queue.async { [self] in
                work()
                state.withLock { s in
                    s.running -= 1
                    if long { s.runningLong -= 1 }
                    s.finished += 1
                    s.busy.remove(owner)
                }
                pump()
            }
        }
    }

    private func takeNext() -> (Owner, @Sendable () -> Void, Bool)? {
        state.withLock { s in
            guard s.running < width else { return nil }
            let longAllowed = s.runningLong < longWidth
            // An owner whose only work is long waits while the long slots are taken; its frames never do.
            let waiting = s.queues.filter { owner, jobs in
                !s.busy.contains(owner) && (longAllowed || jobs.contains { $0.priority != .long })
            }.keys
            // Owners with only background work go after everyone's frames and long work: twenty sessions
            // preparing their drags must not hold workers while another person's slider waits. Owners with a
            // settled frame go before all of them, the oldest first: a person's final picture waits only for
            // the finals asked for before it.
            let oldestSettled = waiting.compactMap { owner in
                s.queues[owner]!.first { $0.priority == .settled }.map { (owner, $0.id) }
            }.min { $0.1 < $1.1 }?.0
            let urgent = waiting.filter { owner in
                s.queues[owner]!.contains { $0.priority == .frame || ($0.priority == .long && longAllowed) }
            }
            let candidates = urgent.isEmpty ? Array(waiting) : urgent
            guard let owner = oldestSettled ?? candidates.min(by: { (s.lastServed[$0] ?? 0, $0) < (s.lastServed[$1] ?? 0, $1) }) else { return nil }
            var jobs = s.queues[owner] ?? []
            // Settled frames first, then frames, then background work, then (when a long slot is free) long work,
            // each in order.
            let order: [Priority] = longAllowed ? [.settled, .frame, .background, .long] : [.settled, .frame, .background]
            guard let next = order.lazy.compactMap({ p in jobs.firstIndex { $0.priority == p } }).first else { return nil }
            let job = jobs.remove(at: next)
            s.queues[owner] = jobs.isEmpty ? nil : jobs
            s.tick += 1
            s.lastServed[owner] = s.tick
            s.busy.insert(owner)
            s.running += 1
            let long = job.priority == .long
            if long { s.runningLong += 1 }
            return (owner, job.work, long)
        }
    }
}
