import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import Foundation
import Synchronization

/// A studio session: the notebook and photo one page works on, its renders, and the connections attached
/// to it (one editor, any number of view-only watchers). It outlives its connections for a grace period
/// so a reloaded page gets it back.
public final class Session: Sendable {
    public let id: String
    /// The render pool's name for this session (its fair share is per session).
    let owner: RenderPool.Owner
    let pool: RenderPool
    let photos: PhotoCache
    /// The state machine's data, reached only through the session's executor (`handle`, `read`; the steps are
    /// plain functions of `State`, see SessionExecutor.swift).
    private let state: Locked<State>

    struct Attached: Sendable {
        var connection: ClientConnection
        var role: SessionRole
    }

    struct State: Sendable {
        /// The editor's secret: who presents it with the id may take the session back as its editor. A new one
        /// is made each time it is used, so a key seen once (a log, a shoulder) is worth nothing afterwards.
        var resumeKey = RandomID.make()
        /// The notebook, checked when it came in (and kept checked by the edits).
        var notebook: CheckedNotebook?
        /// The saved version the notebook is, or nil once edited (editing a shared notebook forks it).
        var shared: String?
        /// The saved version the next save records as its parent.
        var parent: String?
        /// The photo the notebook renders on: its reference and facts only. The decoded planes live in the
        /// photo cache, which may let them go while the session is idle.
        var photo: OpenPhoto?
        var scheduler = RenderScheduler()
        var cancelFlags: [Int: CancelFlag] = [:]
        /// The width the page last asked for each cell's preview.
        var previewWidths: [String: Int] = [:]
        /// The newest frame sent per slot, replayed to a connection that attaches later.
        var lastFrames: [RenderSlot: PendingFrameRecord] = [:]
        var connections: [UInt64: Attached] = [:]
        var detachedSince: ContinuousClock.Instant?
        var histograms = Coalescer<HistogramKey, Result<HistogramReply, ProtocolError>>(limit: Session.histogramsWaiting)
        /// Cells already prepared for a drag on a photo at a preview width (`prepareForDrag`): once each.
        var preparedForDrag: Set<PreparedPreview> = []
        /// The session's one export at a time, and its hand-over to a page that resumes the session.
        var export = ExportHandOver()
        var frameStamp: UInt64 = 0
    }

    struct PreparedPreview: Hashable, Sendable {
        var photo: PhotoReference
        var cell: String
        var width: Int
    }

    struct PendingFrameRecord: Sendable {
        var seq: Int
        var coarse: Bool
        var bytes: [UInt8]
        /// When it was kept (a counter), so the oldest goes first when the session keeps too many.
        var stamp: UInt64 = 0
    }

    /// Counts the times every page left (and the close): work asked for before the count moved has nobody
    /// waiting for it (`abandonedCheck`).
    let abandonments = Atomic<UInt64>(0)

    /// Bytes of kept frames (`lastFrames`) past which the oldest are let go.
    let keptFrameBytes: Int

    init(id: String, resumeKey: String = RandomID.make(), owner: RenderPool.Owner, pool: RenderPool, photos: PhotoCache,
         keptFrameBytes: Int = 16 << 20) {
        self.keptFrameBytes = keptFrameBytes
        self.id = id
        self.owner = owner
        self.pool = pool
        self.photos = photos
        self.state = Locked(State(resumeKey: resumeKey, detachedSince: .now))
    }

    // MARK: The executor: one step at a time

    /// Runs `step` on the state, alone, and returns its reply and the actions it asks for, not yet carried out
    /// (`execute` carries them out; a render's kickoff waits for its request's reply).
    func handle<Reply>(_ step: (inout State) throws -> SessionStep<Reply>) rethrows -> SessionStep<Reply> {
        try state.withLock { try step(&$0) }
    }

    /// A step that only reads the state.
    func read<Value>(_ body: (State) -> Value) -> Value {
        state.withLock { body($0) }
    }

    // MARK: Steps a page's requests take (the edits themselves are in SessionEdits.swift)

    /// Takes the session back as its editor when `key` is its resume key (compared in time that does not
    /// depend on where they differ): returns the new key that replaces it, or nil.
    func resume(withKey key: String) -> String? {
        execute { SessionStep(reply: $0.resume(withKey: key)) }
    }

    /// What the session shows now: its notebook, its photo, the saved version it is and the one a save records
    /// as its parent.
    var shown: (notebook: CheckedNotebook?, photo: OpenPhoto?, shared: String?, parent: String?) {
        read { ($0.notebook, $0.photo, $0.shared, $0.parent) }
    }

    /// A notebook opened on its photo: what was rendering for the old one stops.
    func open(_ notebook: CheckedNotebook, shared: String?, photo: OpenPhoto) {
        execute { s in
            s.open(notebook, shared: shared, photo: photo)
            return s.invalidateRenders()
        }
    }

    /// Another photo under the same recipe; returns the notebook as it now is.
    func change(to photo: OpenPhoto) -> CheckedNotebook? {
        execute { s in
            let notebook = s.change(to: photo)
            return SessionStep(reply: notebook, actions: s.invalidateRenders().actions)
        }
    }

    /// The whole notebook replaced (and its photo, when it names another).
    func replace(with notebook: CheckedNotebook, photo: OpenPhoto?) {
        execute { s in
            s.replace(with: notebook, photo: photo)
            return s.invalidateRenders()
        }
    }

    /// The open photo gained a plane made in the background: its facts replace the old, and every page attached
    /// is told and asks for its cells again. Renders under way finish on the photo without it and answer their
    /// requests (cancelled, a client that does not know the event waited for them in vain); the frames kept for
    /// a page that attaches later are dropped, being of the photo without it.
    func photoImproved(_ better: LoadedPhoto) {
        execute { s in
            guard s.photo?.reference == better.reference else { return SessionStep(reply: ()) }
            s.photo = OpenPhoto(better)
            s.lastFrames.removeAll()
            s.preparedForDrag = s.preparedForDrag.filter { $0.photo != better.reference }
            let targets = s.connections()
            return SessionStep(reply: (), actions: targets.isEmpty ? [] : [.sendEvent(.photo(.init(photo: better.facts)), to: targets)])
        }
    }

    /// A parameter change checked, merged and its renders asked for, in one step: the renders, the notebook as it
    /// now is, and the renders' start once the reply is on its way.
    func apply(_ set: StudioRequest.SetParams) throws -> (requests: [FrameRequest], notebook: CheckedNotebook?, kickoff: RenderKickoff) {
        let step = try handle { s in try s.apply(set) }
        return (step.reply.requests, step.reply.notebook, RenderKickoff(session: self, actions: step.actions))
    }

    /// A preview of `cell` at `width`: checked, the width remembered for the cells below a change, and its render
    /// asked for, in one step.
    func preview(_ request: FrameRequest) throws -> RenderKickoff {
        RenderKickoff(session: self, actions: try handle { s in try s.preview(request) }.actions)
    }

    /// A crop of `cell`: checked against the notebook and the photo's size, and its render asked for, in one step.
    func crop(_ request: FrameRequest) throws -> RenderKickoff {
        RenderKickoff(session: self, actions: try handle { s in try s.crop(request) }.actions)
    }

    /// `notebook` was saved as `id`.
    func saved(_ notebook: Notebook, as id: String) {
        execute { s in
            s.saved(notebook, as: id)
            return SessionStep(reply: ())
        }
    }

    /// Claims the session's one export for `connection`'s request; false while another runs.
    func beginExport(_ export: InterruptedExport, for connection: ClientConnection) -> Bool {
        execute { SessionStep(reply: $0.export.begin(export, for: connection)) }
    }

    /// The export ended; `interrupted` when it stopped because its page left. Returns the page that resumed
    /// the session meanwhile and was told of it (its request's reply goes there).
    func finishExport(interrupted: Bool) -> ClientConnection? {
        execute { SessionStep(reply: $0.export.finish(interrupted: interrupted)) }
    }

    /// Whether nobody has been attached for longer than `grace`; a session that never opened a notebook has
    /// nothing to come back to and goes after `emptyGrace` (a socket sending thousands of hellos).
    func isExpired(now: ContinuousClock.Instant, grace: Duration, emptyGrace: Duration) -> Bool {
        read { s in s.detachedSince.map { now - $0 > (s.notebook == nil ? min(grace, emptyGrace) : grace) } ?? false }
    }

    /// Since when nobody has been attached, or nil while a page is.
    var detachedSince: ContinuousClock.Instant? { read { $0.detachedSince } }
}
