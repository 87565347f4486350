import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
@testable import DepthbookServer
import Testing

/// The session's executor runs each step as a plain function of its state that answers a reply and the actions
/// to carry out afterwards: binding pages, sending frames, starting and cancelling renders. Here the steps are
/// driven directly, with no lock, pool or socket, and what they ask for is read from the actions.
@Suite(.timeLimit(.minutes(30)))
struct SessionStepsTests {
    static func page(_ id: UInt64) -> ClientConnection { ClientConnection(id: id) { _ in } }

    static func change(_ seq: Int, percentile: Double = 40) -> StudioRequest.SetParams {
        StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(percentile)], unset: nil, seq: seq,
                                interactive: false, offscreen: nil)
    }

    /// The renders a step starts, with their flags.
    static func renders(_ actions: [SessionAction]) -> [(job: RenderJob, flag: CancelFlag)] {
        actions.compactMap { if case .render(let job, let flag, _) = $0 { (job, flag) } else { nil } }
    }

    static func cancelled(_ actions: [SessionAction]) -> [CancelFlag] {
        actions.compactMap { if case .cancel(let flag) = $0 { flag } else { nil } }
    }

    static func bindings(_ actions: [SessionAction]) -> [(UInt64, SessionRole)] {
        actions.compactMap { if case .bind(let connection, let role) = $0 { (connection.id, role) } else { nil } }
    }

    @Test func anEditorTakingOverDemotesTheOneBeforeWithActionsNotCalls() throws {
        var state = try SessionEditsTests.opened()
        let first = Self.page(1), second = Self.page(2)
        let arrived = state.attach(first, role: .edit, resuming: false)
        #expect(Self.bindings(arrived.actions).map(\.0) == [1] && arrived.reply.notebook != nil)
        // The step only says what to bind: nothing is bound until the actions are carried out.
        #expect(first.currentBinding == nil)
        let taken = state.attach(second, role: .edit, resuming: false)
        let bound = Self.bindings(taken.actions)
        #expect(bound.map(\.0) == [1, 2] && bound.map(\.1) == [.watch, .edit])
        #expect(state.connections[1]?.role == .watch && state.connections[2]?.role == .edit)
        #expect(taken.reply.resumeKey == state.resumeKey && state.detachedSince == nil)
    }

    @Test func aRenderCarriesItsFlagSoAChangeOfNotebookStopsItEvenBeforeItStarts() throws {
        var state = try SessionEditsTests.opened()
        let step = try state.apply(Self.change(1))
        let started = Self.renders(step.actions)
        #expect(started.map(\.job.request.slot.cell) == ["mask", "result"])
        // The notebook the render works on is the one the step made (no photo is open here).
        if case .render(_, _, let inputs) = step.actions[0] { #expect(inputs == nil) }
        let invalidated = state.invalidateRenders()
        let flags = Self.cancelled(invalidated.actions)
        #expect(flags.count == 2)
        #expect(started.allSatisfy { render in flags.contains { $0 === render.flag } })
    }

    @Test func theLastPageLeavingStopsWhatIsInFlightAndOnlyThen() throws {
        var state = try SessionEditsTests.opened()
        let editor = Self.page(1), watcher = Self.page(2)
        _ = state.attach(editor, role: .edit, resuming: false)
        _ = state.attach(watcher, role: .watch, resuming: false)
        let started = Self.renders(try state.apply(Self.change(1)).actions)
        let one = state.detach(editor)
        #expect(one.reply == false && one.actions.isEmpty && state.detachedSince == nil)
        let last = state.detach(watcher)
        #expect(last.reply == true && state.detachedSince != nil)
        #expect(Self.cancelled(last.actions).count == started.count)
    }

    @Test func aFinishedFrameGoesToEveryPageIsKeptAndReplayedToTheNextOne() throws {
        var state = try SessionEditsTests.opened()
        let editor = Self.page(1), watcher = Self.page(2)
        _ = state.attach(editor, role: .edit, resuming: false)
        _ = state.attach(watcher, role: .watch, resuming: false)
        let job = try #require(Self.renders(try state.apply(Self.change(3)).actions).first?.job)
        let done = state.finished(job, outcome: .rendered, frame: [1, 2, 3], shared: false, keptFrameBytes: 1 << 20)
        #expect(done.reply == false)
        let sent = done.actions.compactMap { if case .sendFrame(let frame, let slot, let to) = $0 { (frame, slot, to.map(\.id).sorted()) } else { nil } }
        #expect(sent.count == 1 && sent[0].1 == job.request.slot && sent[0].2 == [1, 2] && sent[0].0.bytes == [1, 2, 3])
        #expect(sent[0].0.isCurrent())
        #expect(state.cancelFlags[job.ticket] == nil && state.lastFrames[job.request.slot]?.bytes == [1, 2, 3])
        // Its first full preview on a photo would be prepared for a drag; no photo is open here.
        #expect(!done.actions.contains { if case .prepareForDrag = $0 { true } else { false } })

        let late = Self.page(3)
        let replayed = state.attach(late, role: .watch, resuming: false).actions.compactMap {
            if case .sendFrame(let frame, _, let to) = $0 { (frame.bytes, to.map(\.id)) } else { nil }
        }
        #expect(replayed.count == 1 && replayed[0].0 == [1, 2, 3] && replayed[0].1 == [3])
    }

    @Test func aFailedRenderIsToldToEveryPageAndAStaleFrameIsNotSent() throws {
        var state = try SessionEditsTests.opened()
        _ = state.attach(Self.page(1), role: .edit, resuming: false)
        let first = try #require(Self.renders(try state.apply(Self.change(1)).actions).first?.job)
        // A newer change while the first is in flight: the first's frame is superseded.
        _ = try state.apply(Self.change(2, percentile: 45))
        let superseded = state.finished(first, outcome: .rendered, frame: [9], shared: false, keptFrameBytes: 1 << 20)
        #expect(superseded.reply == true)
        #expect(!superseded.actions.contains { if case .sendFrame = $0 { true } else { false } })
        // The pending change's render starts as the first ends.
        let next = try #require(Self.renders(superseded.actions).first?.job)
        #expect(next.request.seq == 2)
        let failed = state.finished(next, outcome: .failed("no depth"), frame: nil, shared: false, keptFrameBytes: 1 << 20)
        let told = failed.actions.compactMap { if case .sendEvent(let event, let to) = $0 { (String(decoding: event.message(), as: UTF8.self), to.map(\.id)) } else { nil } }
        #expect(told.count == 1 && told[0].1 == [1] && told[0].0.contains("no depth") && told[0].0.contains("cellError"))
    }

    @Test func aPreviewRemembersItsWidthOnlyWhenItIsAskedFor() throws {
        var state = try SessionEditsTests.opened()
        let slot = RenderSlot(cell: "mask", kind: .preview)
        _ = try state.preview(FrameRequest(slot: slot, seq: 5, target: .preview(width: 512)))
        #expect(state.previewWidths["mask"] == 512)
        let stale = #expect(throws: ProtocolError.self) {
            _ = try state.preview(FrameRequest(slot: slot, seq: 4, target: .preview(width: 300)))
        }
        #expect(stale?.message == "seq 4 is older than 5, already seen for cell \"mask\"")
        #expect(state.previewWidths["mask"] == 512)
        #expect(throws: ProtocolError.self) {
            _ = try state.preview(FrameRequest(slot: RenderSlot(cell: "intro", kind: .preview), seq: 1, target: .preview(width: 300)))
        }
    }
}
