import DepthbookDocument
import DepthbookEffects
import DepthbookFrames
import DepthbookMessages

/// What one step of a session's state machine answers, and what it wants done once the state is let go.
struct SessionStep<Reply> {
    var reply: Reply
    var actions: [SessionAction] = []
}

extension SessionStep: Sendable where Reply: Sendable {}

/// Everything a step of a session may ask to be done. A step only edits `Session.State`; sending, binding and
/// starting renders happen after it, outside the session's executor, in the order listed.
enum SessionAction: Sendable {
    /// Run this render on the pool, on the notebook and photo as the step that asked for it saw them (nil: none
    /// was open), stopping when `flag` is raised.
    case render(RenderJob, flag: CancelFlag, on: RenderInputs?)
    /// Ask a render in flight to stop at its next stage boundary.
    case cancel(CancelFlag)
    /// Tell a connection which session it is attached to, and as what.
    case bind(ClientConnection, SessionRole)
    /// Put a frame in these connections' outboxes (it is checked against its slot's currency as it goes out).
    case sendFrame(PendingFrame, RenderSlot, to: [ClientConnection])
    /// Send an event to these connections (encoded once, after the step).
    case sendEvent(StudioEvent, to: [ClientConnection])
    /// Render a cell again in the background as a drag will (`Session.prepareForDrag`).
    case prepareForDrag(RenderJob)
}

/// The notebook and photo a render works on.
struct RenderInputs: Sendable {
    var notebook: CheckedNotebook
    var photo: PhotoReference
}

/// The session's executor: every read and change of its state is one step, run alone (no other step of the
/// session runs meanwhile), and what a step asks to be done runs after it, outside.
///
/// A step is a plain function of `Session.State` (SessionEdits.swift, and the `State` extensions beside the
/// session's connections and renders): it takes no other lock, does no I/O and calls nothing outside the state,
/// so the lock behind `step` is a leaf of the lock order (docs/architecture.md). Page requests (on their
/// connection's queue) and render workers (on the pool) both go through here, one step at a time.
extension Session {
    /// Runs `step` and carries out its actions; returns its reply.
    @discardableResult
    func execute<Reply>(_ step: (inout State) throws -> SessionStep<Reply>) rethrows -> Reply {
        let done = try handle(step)
        perform(done.actions)
        return done.reply
    }

    /// Carries out what a step asked for, in order.
    func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .render(let job, let flag, let inputs): run(job, flag: flag, on: inputs)
            case .cancel(let flag): flag.cancel()
            case .bind(let connection, let role): connection.bind(self, role: role)
            case .sendFrame(let frame, let slot, let connections):
                for connection in connections { connection.sendFrame(frame, for: slot) }
            case .sendEvent(let event, let connections):
                let bytes = event.message()
                for connection in connections { connection.sendText(bytes) }
            case .prepareForDrag(let job): prepareForDrag(job)
            }
        }
    }
}

extension Session.State {
    /// The scheduler's wishes as the session's actions: a render to start gets its cancel flag and the inputs
    /// as they are now; a cancel reaches the flag of the job it names. (`deliver` and `reportFailure` come only
    /// from `finished`, which sends them itself.)
    mutating func carryOut(_ scheduled: [RenderScheduler.Action]) -> [SessionAction] {
        scheduled.compactMap { action in
            switch action {
            case .start(let job):
                let flag = CancelFlag()
                cancelFlags[job.ticket] = flag
                return .render(job, flag: flag, on: renderInputs)
            case .cancel(let ticket):
                return cancelFlags[ticket].map { .cancel($0) }
            case .deliver, .reportFailure:
                return nil
            }
        }
    }

    /// The notebook and photo a render started now works on, or nil while either is missing.
    var renderInputs: RenderInputs? {
        guard let notebook, let photo else { return nil }
        return RenderInputs(notebook: notebook, photo: photo.reference)
    }

    /// Every attached connection (or those with `role`, but `except`).
    func connections(only role: SessionRole? = nil, except: UInt64? = nil) -> [ClientConnection] {
        connections.values.filter { (role == nil || $0.role == role) && $0.connection.id != except }.map(\.connection)
    }
}
