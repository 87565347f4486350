import DepthbookEffects
import DepthbookFrames
import DepthbookProtocol

/// Which output of a cell a render feeds: its preview or its 1:1 crop. Each has its own sequence of frames.
public struct RenderSlot: Sendable, Hashable, CustomStringConvertible {
    public var cell: String
    public var kind: FrameHeader.Kind

    public init(cell: String, kind: FrameHeader.Kind) {
        self.cell = cell
        self.kind = kind
    }

    public var description: String { "\(cell)/\(kind.rawValue)" }
}

/// One render the page asked for: the slot, the request's sequence number and the target size.
public struct FrameRequest: Sendable, Equatable {
    public var slot: RenderSlot
    public var seq: Int
    public var target: CellRenderRequest
    /// True while a slider moves: render a coarse preview first, then the full one if nothing newer came.
    public var interactive: Bool
    /// A cell the page does not show now (scrolled away), rendered as the drag ends: it waits until no session
    /// has a frame in view waiting. Twenty editors' final frames each queued behind four hidden cells of their
    /// own, 736 px each (p95 3.1 s, docs/server.md).
    public var unseen: Bool

    public init(slot: RenderSlot, seq: Int, target: CellRenderRequest, interactive: Bool = false, unseen: Bool = false) {
        self.slot = slot
        self.seq = seq
        self.target = target
        self.interactive = interactive
        self.unseen = unseen
    }
}

/// A render handed to the pool: the request, whether it is the coarse pass, and a ticket naming it.
public struct RenderJob: Sendable, Equatable {
    public var ticket: Int
    public var request: FrameRequest
    public var coarse: Bool
    /// A full-quality pass made in the middle of a drag (after `RenderScheduler.coarseRun` coarse frames in a
    /// row), so a sharp picture keeps coming while the slider moves. Like a coarse pass, it is neither
    /// cancelled nor held back when newer requests arrive.
    public var refresh = false

    /// Whether its frame may still go out when newer requests came meanwhile (coarse passes and refreshes).
    public var deliveredWhenSuperseded: Bool { coarse || refresh }

    /// A 1:1 crop (whole-frame stages at the photo's full size), or a preview wider than `heavyPreviewWidth`
    /// that no slider is moving: it runs in the pool's long slots, behind everyone's interactive frames (a 2048-px
    /// preview of a long formula chain held a worker for tens of seconds while another person's slider waited).
    /// A drag's frames stay interactive whatever their width: a presenter's stage is a 2048-px preview, and as a
    /// long job its sharp frames waited behind every coarse one until the drag ended.
    public var isHeavy: Bool {
        target.region != nil || (!request.interactive && target.width > Self.heavyPreviewWidth)
    }

    /// The widest preview that still runs as an interactive frame (a phone's or a HiDPI page's picture).
    public static let heavyPreviewWidth = 1536

    /// A full frame of a request made at rest, in view (the drag's last change, a cell opened): what a person
    /// waits for now, so it goes before every session's drag frames (`RenderPool.Priority.settled`).
    public var isSettled: Bool { !coarse && !refresh && !request.interactive && !request.unseen }

    /// The size actually rendered: a coarse pass renders a preview at half width (never under the limits'
    /// `coarseMinimumWidth`). Never
    /// smaller: a quarter-width frame on a large preview is a blur, not a picture that follows the slider.
    public var target: CellRenderRequest {
        guard coarse, request.target.isPreview else { return request.target }
        return .preview(width: max(Limits.studio.coarseMinimumWidth, request.target.width / 2))
    }
}

/// How a render ended.
public enum RenderOutcome: Sendable, Equatable {
    case rendered
    case cancelled
    case failed(String)
}

/// The per-session render state machine, with no I/O: the session shell feeds it requests and render
/// outcomes and carries out the actions it returns.
///
/// Per slot at most one render is in flight and one is pending; a newer request replaces the pending one.
/// A full-size render in flight is cancelled when a newer request arrives (its frame could only be out of
/// date, and it is the slow kind). A coarse render in flight is left to finish: it is quick, and during a
/// drag it is the only way a picture keeps coming. Frames leave a slot in increasing `seq` order; a full
/// frame is delivered only if its request is still the newest; nothing rendered before the notebook or
/// photo changed (`cancelAll`) is ever delivered. An interactive request renders coarse first, then full.
public struct RenderScheduler: Sendable {
    public enum Action: Sendable, Equatable {
        /// Submit this job to the render pool.
        case start(RenderJob)
        /// Ask the job with this ticket to stop at its next stage boundary.
        case cancel(ticket: Int)
        /// Send the frame this job rendered.
        case deliver(RenderJob)
        /// Tell the page the render for this request failed.
        case reportFailure(RenderJob, message: String)
    }

    public enum RequestError: Error, Equatable {
        /// The request's sequence number is older than one already seen for the slot.
        case stale(seq: Int, newest: Int, cell: String)

        /// How the page hears of it: the one place the refusal is worded.
        var protocolError: ProtocolError {
            switch self {
            case .stale(let seq, let newest, let cell):
                ProtocolError(.badRequest, "seq \(seq) is older than \(newest), already seen for cell \"\(cell)\"", cell: cell)
            }
        }
    }

    private struct SlotState: Sendable {
        var newestSeq: Int
        var inFlight: RenderJob?
        var pending: RenderJob?
        /// The newest seq a frame was delivered for.
        var deliveredSeq: Int?
        /// Frames for sequence numbers below this were rendered from a notebook or photo since replaced.
        var floor: Int = .min
        /// Coarse frames delivered since the last full one.
        var coarseStreak = 0
    }

    private var slots: [RenderSlot: SlotState] = [:] {
        didSet { publish() }
    }
    /// Per slot, what the network thread checks a frame against before sending it (`isCurrent`, published).
    private var currencies: [RenderSlot: FrameCurrency] = [:]
    /// Jobs whose inputs changed under them: whatever they produce is never delivered.
    private var invalidated: Set<Int> = []
    private var nextTicket = 1

    public init() {}

    /// A new request from the page. Sequence numbers may repeat for a slot (a change re-renders the cells
    /// below it with the same number) but never go back.
    public mutating func request(_ request: FrameRequest) throws(RequestError) -> [Action] {
        if let stale = staleness(request.seq, for: request.slot) { throw stale }
        var state = slots[request.slot] ?? SlotState(newestSeq: request.seq)
        state.newestSeq = request.seq
        let job = makeJob(request, coarse: request.interactive && isPreview(request))
        var actions: [Action] = []
        if let running = state.inFlight {
            state.pending = job
            if !running.deliveredWhenSuperseded { actions.append(.cancel(ticket: running.ticket)) }
        } else {
            state.inFlight = job
            actions.append(.start(job))
        }
        slots[request.slot] = state
        return actions
    }

    /// A job ended. Returns what to deliver and what to start next. `shared`: other sessions are rendering or
    /// waiting, so a drag's sharp refreshes come less often (`coarseRun(shared:)`).
    public mutating func finished(_ job: RenderJob, outcome: RenderOutcome, shared: Bool = false) -> [Action] {
        let wasInvalidated = invalidated.remove(job.ticket) != nil
        guard var state = slots[job.request.slot], state.inFlight?.ticket == job.ticket else { return [] }
        state.inFlight = nil
        var actions: [Action] = []
        let seq = job.request.seq
        let fresh = !wasInvalidated && seq >= state.floor
        let newest = state.pending == nil && seq == state.newestSeq
        switch outcome {
        case .rendered where fresh && (job.deliveredWhenSuperseded || newest) && seq >= (state.deliveredSeq ?? .min):
            actions.append(.deliver(job))
            state.deliveredSeq = seq
            state.coarseStreak = job.coarse ? state.coarseStreak + 1 : 0
            if job.coarse && newest {
                // The coarse pass answered quickly; the full pass follows unless something newer arrives.
                state.pending = makeJob(job.request, coarse: false)
            }
        case .failed(let message) where fresh && newest:
            actions.append(.reportFailure(job, message: message))
        default:
            break
        }
        if var next = state.pending {
            state.pending = nil
            if next.coarse && state.coarseStreak >= Self.coarseRun(shared: shared) {
                // The drag goes on: this one is rendered sharp, and delivered even if the slider moves on.
                next.coarse = false
                next.refresh = true
            }
            state.inFlight = next
            actions.append(.start(next))
        }
        slots[job.request.slot] = state
        return actions
    }

    /// Coarse frames in a row after which the next render of a moving slider is a full-quality refresh. With
    /// the machine to itself a drag alternates quick and sharp frames, so half of what a person sees while
    /// dragging is sharp; while other sessions render too, a refresh (which nothing cancels) comes after three, so
    /// twenty sessions are not slowed by sharp frames nobody waits for (docs/server.md has both figures).
    public static func coarseRun(shared: Bool) -> Int { shared ? 3 : 1 }

    /// The published form of `isCurrent` for `slot`, which a frame in an outbox keeps and asks without this
    /// scheduler's lock. The slot must have been asked for (a frame is only ever rendered for such a slot).
    public mutating func currency(for slot: RenderSlot) -> FrameCurrency {
        if let known = currencies[slot] { return known }
        let made = FrameCurrency()
        currencies[slot] = made
        publish()
        return made
    }

    /// Writes every slot's state where its currency can read it. A handful of slots per session (the cells in
    /// view, their crops): cheaper than tracking which one each change touched.
    private func publish() {
        for (slot, currency) in currencies {
            let state = slots[slot]
            currency.publish(floor: state?.floor ?? .max,
                             settled: state.flatMap { $0.pending == nil ? $0.newestSeq : nil })
        }
    }

    /// Whether a frame rendered for `seq` may still be sent for `slot` (checked again just before sending):
    /// not from before a reset, and, for a full frame, still the newest request (`coarse` is true for frames
    /// delivered when superseded: coarse passes and refreshes).
    public func isCurrent(slot: RenderSlot, seq: Int, coarse: Bool) -> Bool {
        guard let state = slots[slot], seq >= state.floor else { return false }
        return coarse || (state.newestSeq == seq && state.pending == nil)
    }

    /// Why `seq` may not be asked for `slot`: older than one already seen for it. The one check of sequence
    /// numbers when a render is asked for (`request`); a change asks for its cell's render before it touches the
    /// notebook, so a stale change changes nothing.
    private func staleness(_ seq: Int, for slot: RenderSlot) -> RequestError? {
        guard let newest = slots[slot]?.newestSeq, seq < newest else { return nil }
        return .stale(seq: seq, newest: newest, cell: slot.cell)
    }

    /// The newest sequence number seen for a slot.
    public func newestSeq(for slot: RenderSlot) -> Int? { slots[slot]?.newestSeq }

    /// Forgets every pending render and cancels those in flight (the photo or the notebook structure changed).
    /// Sequence numbers are kept so older frames still never go out.
    public mutating func cancelAll() -> [Action] {
        var actions: [Action] = []
        for (slot, var state) in slots {
            state.pending = nil
            // Saturating: the decoder bounds seq far below Int.max, and this must not trap even if it did not.
            state.floor = state.newestSeq == .max ? .max : state.newestSeq + 1
            if let running = state.inFlight {
                invalidated.insert(running.ticket)
                actions.append(.cancel(ticket: running.ticket))
            }
            slots[slot] = state
        }
        return actions
    }

    /// Stops the work nobody is waiting for any more (every page left): pending renders are forgotten and
    /// those in flight cancelled, their frames never delivered. Unlike `cancelAll`, frames already delivered
    /// stay current, so a page that comes back is shown them again.
    public mutating func dropWork() -> [Action] {
        var actions: [Action] = []
        for (slot, var state) in slots {
            state.pending = nil
            if let running = state.inFlight {
                invalidated.insert(running.ticket)
                actions.append(.cancel(ticket: running.ticket))
            }
            slots[slot] = state
        }
        return actions
    }

    /// Renders currently in flight (submitted to the pool and not yet finished).
    public var inFlightCount: Int { slots.values.reduce(0) { $0 + ($1.inFlight == nil ? 0 : 1) } }

    private mutating func makeJob(_ request: FrameRequest, coarse: Bool) -> RenderJob {
        defer { nextTicket += 1 }
        return RenderJob(ticket: nextTicket, request: request, coarse: coarse)
    }

    private func isPreview(_ request: FrameRequest) -> Bool { request.target.isPreview }
}
