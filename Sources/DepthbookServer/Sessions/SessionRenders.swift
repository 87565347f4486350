import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import Foundation
import Synchronization

/// A session's renders: asked for through its scheduler, run on the pool, their frames sent to its pages.
extension Session {
    /// Renders accepted by the scheduler, started only once the request's reply is on its way (so the page
    /// always sees `{cell, seq}` before the frames that answer it).
    struct RenderKickoff: Sendable {
        let session: Session
        let actions: [SessionAction]

        func start() { session.perform(actions) }
    }

    /// Runs a render the scheduler started on the pool, then hands its outcome back to the session (`complete`).
    func run(_ job: RenderJob, flag: CancelFlag, on inputs: RenderInputs?) {
        pool.submit(owner: owner, priority: job.poolPriority) { [self] in
            guard let inputs else {
                complete(job, outcome: .failed("open a notebook and a photo first"), frame: nil)
                return
            }
            let renderer: any PhotoRenderer
            do {
                renderer = try photos.photo(inputs.photo, for: .render(job.target)).renderer
            } catch {
                StudioMetrics.shared.decodeFailed()
                complete(job, outcome: .failed(Self.message(for: error)), frame: nil)
                return
            }
            if flag.isCancelled {
                complete(job, outcome: .cancelled, frame: nil)
                return
            }
            let started = ContinuousClock.now
            do {
                let rendered = try renderer.render(notebook: inputs.notebook, cell: job.request.slot.cell,
                                                   target: job.target,
                                                   isCancelled: { flag.isCancelled })
                let elapsed = ContinuousClock.now - started
                StudioMetrics.shared.recordRender(job.metricKind, took: elapsed)
                let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                var header = FrameHeader(cell: job.request.slot.cell, seq: job.request.seq, kind: job.request.slot.kind,
                                         width: rendered.width, height: rendered.height, coarse: job.coarse,
                                         renderMs: (ms * 100).rounded() / 100,
                                         cacheHits: rendered.cacheHits, cacheMisses: rendered.cacheMisses)
                header.chosen = rendered.chosen.isEmpty ? nil : rendered.chosen
                header.notes = rendered.notes.isEmpty ? nil : rendered.notes
                complete(job, outcome: .rendered, frame: BinaryFrame.encode(header: header, jpeg: rendered.jpeg))
            } catch {
                complete(job, outcome: flag.isCancelled ? .cancelled : .failed(Self.message(for: error)), frame: nil)
            }
        }
    }

    /// A render ended: one step decides what goes out and what starts next.
    private func complete(_ job: RenderJob, outcome: RenderOutcome, frame: [UInt8]?) {
        // Read before the step: the pool's lock is never taken inside the session's.
        let shared = pool.othersBusy(than: owner)
        let superseded = execute { $0.finished(job, outcome: outcome, frame: frame, shared: shared, keptFrameBytes: keptFrameBytes) }
        if superseded { StudioMetrics.shared.frameSuperseded() }
    }

    /// Once a cell's first full preview on a photo is up, renders it again in the background as a drag would:
    /// at the same width once more and at the coarse width twice, frames nobody is sent. The photo is then
    /// reduced to the coarse width, and the sides of the recipe that a slider does not move are kept at both
    /// widths (a pointwise stage is kept the second time it is asked for, `RenderCache.isRepeat`). Without it
    /// the first changes of the first drag paid for both: the first coarse frame of the pug's result waited
    /// 59 ms for the reduction, and the longest gap a person saw was always the second one, 76–89 ms.
    func prepareForDrag(_ job: RenderJob) {
        let cell = job.request.slot.cell, full = job.target, coarse = RenderJob(ticket: 0, request: job.request, coarse: true).target
        withRenderer(for: .render(full), { notebook, renderer, isCancelled in
            for target in [full, coarse, coarse] {
                try renderer.prepare(notebook: notebook, cell: cell, target: target, isCancelled: isCancelled)
            }
        }, completion: { _ in })
    }

    /// Runs `work` with this session's renderer as one of its pool jobs (background work: after any frame
    /// the session is waiting for), so it never overlaps a render. The notebook is the one current when the
    /// job runs, so a coalesced answer reflects the newest change. `work` is handed the job's cancellation
    /// check: once every page has left the session (or it closed), the job stops at its next check.
    func withRenderer<T: Sendable>(priority: RenderPool.Priority = .background, for use: PhotoUse = .full,
                                   _ work: @escaping @Sendable (CheckedNotebook, any PhotoRenderer, @escaping @Sendable () -> Bool) throws -> T,
                                   waiting: (@Sendable (RenderPool.Wait) -> Void)? = nil,
                                   completion: @escaping @Sendable (Result<T, ProtocolError>) -> Void) {
        guard read({ $0.renderInputs != nil }) else {
            completion(.failure(.badRequest("open a notebook first")))
            return
        }
        let isCancelled = abandonedCheck()
        // Set as the job starts: a `waiting` told after that would reach the page after the job's own news.
        let started = Locked(false)
        let wait = pool.submit(owner: owner, priority: priority) { [self] in
            started.withLock { $0 = true }
            if isCancelled() {
                completion(.failure(ProtocolError(.badRequest, "cancelled: every page of the session left before it ran")))
                return
            }
            guard let inputs = read(\.renderInputs) else {
                completion(.failure(.badRequest("open a notebook first")))
                return
            }
            do {
                let renderer = try photos.photo(inputs.photo, for: use).renderer
                completion(.success(try work(inputs.notebook, renderer, isCancelled)))
            } catch let error as ProtocolError {
                completion(.failure(error))
            } catch {
                completion(.failure(ProtocolError(.unsupported, Self.message(for: error))))
            }
        }
        if let wait, let waiting {
            started.withLock { started in if !started { waiting(wait) } }
        }
    }

    /// A histogram of `reference`, computed once for every request that asks for it while one is waiting or
    /// running; at most `Session.histogramsWaiting` distinct ones wait per session (watchers' included).
    func histogram(reference: String, bins: Int, completion: @escaping @Sendable (Result<HistogramReply, ProtocolError>) -> Void) {
        let key = HistogramKey(reference: reference, bins: bins)
        switch execute({ SessionStep(reply: $0.histograms.join(key, completion)) }) {
        case .joined: return
        case .full:
            completion(.failure(ProtocolError(.tooLarge, "\(Self.histogramsWaiting) histograms are already waiting in this session; ask again when they are answered")))
            return
        case .first: break
        }
        withRenderer(for: .any, { notebook, renderer, isCancelled in
            let started = ContinuousClock.now
            defer { StudioMetrics.shared.recordRender(.histogram, since: started) }
            return try renderer.histogram(notebook: notebook, reference: reference, bins: bins, isCancelled: isCancelled)
        }, completion: { [self] result in
            for waiter in execute({ SessionStep(reply: $0.histograms.finish(key)) }) { waiter(result) }
        })
    }

    static let histogramsWaiting = 16

    static func message(for error: any Error) -> String {
        String(describing: error)
    }
}

extension Session.State {
    /// A render ended (`shared`: other sessions are rendering too). The scheduler says whether its frame goes out:
    /// kept for pages that attach later and put in every attached page's outbox, or its failure told; what was
    /// pending for its slot starts; a cell's first full preview on a photo is prepared for a drag. Answers whether
    /// the render was superseded (cancelled, or its frame not delivered).
    mutating func finished(_ job: RenderJob, outcome: RenderOutcome, frame: [UInt8]?, shared: Bool,
                           keptFrameBytes: Int) -> SessionStep<Bool> {
        // For the send-time check, a refresh counts as coarse: it may go out although newer requests came.
        let slot = job.request.slot, seq = job.request.seq, coarse = job.deliveredWhenSuperseded
        cancelFlags[job.ticket] = nil
        let scheduled = scheduler.finished(job, outcome: outcome, shared: shared)
        let delivered = scheduled.contains(.deliver(job))
        let targets = connections()
        var actions: [SessionAction] = []
        for action in scheduled {
            switch action {
            case .deliver:
                guard let frame else { continue }
                frameStamp += 1
                lastFrames[slot] = Session.PendingFrameRecord(seq: seq, coarse: coarse, bytes: frame, stamp: frameStamp)
                Session.trimKeptFrames(&lastFrames, to: keptFrameBytes)
                let currency = scheduler.currency(for: slot)
                actions.append(.sendFrame(PendingFrame(seq: seq, bytes: frame) { currency.isCurrent(seq: seq, coarse: coarse) },
                                          slot, to: targets))
            case .reportFailure(_, let message):
                let event = StudioEvent.cellError(.init(cell: slot.cell, seq: seq, kind: slot.kind.rawValue, message: message))
                actions.append(.sendEvent(event, to: targets))
            default:
                break
            }
        }
        // Only while the session has the machine to itself. Preparing also while others rendered (as background
        // work) let a page that dragged at once wait behind its own preparation while the learned matte was
        // being made: drag_measure on the pug fell from 26-30 to 19 updates/s, and twenty editors gained
        // nothing measurable.
        if delivered, !job.coarse, !job.refresh, job.request.target.isPreview, let photo = photo?.reference, !shared,
           preparedForDrag.insert(Session.PreparedPreview(photo: photo, cell: slot.cell, width: job.target.width)).inserted {
            actions.append(.prepareForDrag(job))
        }
        let superseded = outcome == .cancelled || (frame != nil && !delivered)
        return SessionStep(reply: superseded, actions: actions + carryOut(scheduled))
    }
}

extension Session {
    /// A check that turns true once every page has left the session (or it closed) after this call: the work
    /// it guards was asked for by a page that is gone.
    func abandonedCheck() -> @Sendable () -> Bool {
        let generation = abandonments.load(ordering: .acquiring)
        return { [self] in abandonments.load(ordering: .acquiring) != generation }
    }
}

/// Set by the session when a render is superseded; the renderer polls it at stage boundaries.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

struct HistogramKey: Hashable, Sendable {
    var reference: String
    var bins: Int
}

extension RenderJob {
    /// Where it waits in the pool: heavy work in the long slots, cells out of view behind everyone's frames,
    /// settled frames ahead of them.
    var poolPriority: RenderPool.Priority {
        isHeavy ? .long : request.unseen ? .background : isSettled ? .settled : .frame
    }
}
