import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
@testable import DepthbookServer
import Testing

/// The session's edits as plain state changes: what a parameter change merges, which renders it asks for,
/// and that a refused change leaves everything as it was.
@Suite(.timeLimit(.minutes(30)))
struct SessionEditsTests {
    static func opened() throws -> Session.State {
        var state = Session.State()
        state.notebook = try NotebookValidator().check(StudioFixture.notebook)
        state.shared = "saved-version"
        state.previewWidths = ["result": 736]
        return state
    }

    static func applying(_ set: StudioRequest.SetParams, to state: inout Session.State) throws -> [FrameRequest] {
        try state.apply(set).reply.requests
    }

    @Test func aChangeMergesAndRendersTheCellThenThePreviewedCellsBelow() throws {
        var state = try Self.opened()
        let set = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(40)], unset: nil, seq: 7, interactive: true, offscreen: nil)
        let requests = try state.apply(set).reply.requests
        #expect(requests.map(\.slot.cell) == ["mask", "result"])
        #expect(requests.map(\.seq) == [7, 7] && requests.allSatisfy(\.interactive))
        #expect(requests[0].target == .preview(width: 1024) && requests[1].target == .preview(width: 736))
        #expect(state.notebook?.notebook.cell("mask")?.params?["percentile"] == .number(40))
        #expect(state.shared == nil, "an edited saved notebook is no longer that version")
    }

    /// Cells the page scrolled away wait while the slider moves, and render with the change that ends the drag,
    /// after every frame in view (`unseen`: the pool runs them once no session has a frame waiting).
    @Test func offscreenCellsWaitForTheDragsLastChange() throws {
        var state = try Self.opened()
        let moving = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(41)], unset: nil, seq: 2,
                                             interactive: true, offscreen: ["result"])
        #expect(try state.apply(moving).reply.requests.map(\.slot.cell) == ["mask"])
        let last = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(42)], unset: nil, seq: 3,
                                           interactive: false, offscreen: ["result"])
        let requests = try state.apply(last).reply.requests
        #expect(requests.map(\.slot.cell) == ["mask", "result"])
        #expect(requests.map(\.unseen) == [false, true] && !requests.contains(where: \.interactive))
        // A change that ends a drag with every cell in view renders them all as frames in view.
        let shown = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(43)], unset: nil, seq: 4,
                                            interactive: false, offscreen: nil)
        #expect(try state.apply(shown).reply.requests.map(\.unseen) == [false, false])
    }

    @Test func refusedChangesLeaveTheStateAsItWas() throws {
        var state = try Self.opened()
        let bad = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(400)], unset: nil, seq: 1, interactive: nil, offscreen: nil)
        // The refusal names the cell and the parameter, so the page puts the value back without reading the message.
        let refusal = #expect(throws: ProtocolError.self) { _ = try Self.applying(bad, to: &state) }
        #expect(refusal?.code == .badRequest && refusal?.cell == "mask" && refusal?.parameter == "percentile")
        let unknown = StudioRequest.SetParams(cell: "nope", params: [:], unset: nil, seq: 1, interactive: nil, offscreen: nil)
        #expect(throws: ProtocolError.self) { _ = try Self.applying(unknown, to: &state) }
        let note = StudioRequest.SetParams(cell: "intro", params: [:], unset: nil, seq: 1, interactive: nil, offscreen: nil)
        #expect(throws: ProtocolError.self) { _ = try Self.applying(note, to: &state) }
        #expect(state.notebook?.notebook == StudioFixture.notebook && state.shared == "saved-version")

        // A seq older than one the scheduler has seen for the cell is refused too.
        _ = try state.scheduler.request(FrameRequest(slot: RenderSlot(cell: "mask", kind: .preview), seq: 9, target: .preview(width: 64)))
        let old = StudioRequest.SetParams(cell: "mask", params: ["percentile": .number(50)], unset: nil, seq: 8, interactive: nil, offscreen: nil)
        let stale = #expect(throws: ProtocolError.self) { _ = try Self.applying(old, to: &state) }
        #expect(stale?.message == "seq 8 is older than 9, already seen for cell \"mask\"" && stale?.parameter == nil)
        #expect(state.notebook?.notebook == StudioFixture.notebook)
    }

    @Test func oneExportAtATimeAndSavesOnlyOfWhatIsOpen() throws {
        var state = try Self.opened()
        let export = InterruptedExport(request: 1, export: .init(cell: "mask", format: .png))
        let page = ClientConnection(id: 1) { _ in }
        let first = state.export.begin(export, for: page), second = state.export.begin(export, for: page)
        #expect(first && !second)
        let resumed = state.export.finish(interrupted: false)
        #expect(resumed == nil)
        let third = state.export.begin(export, for: page)
        #expect(third)

        var edited = StudioFixture.notebook
        edited.title = "changed meanwhile"
        state.saved(edited, as: "other")
        #expect(state.shared == "saved-version", "a save of another version does not name this one")
        state.saved(StudioFixture.notebook, as: "new-id")
        #expect(state.shared == "new-id" && state.parent == "new-id")
    }
}
