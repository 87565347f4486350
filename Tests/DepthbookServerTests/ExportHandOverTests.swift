import DepthbookMessages
import Testing
@testable import DepthbookServer

/// An export whose page leaves goes to the page that takes the session back, under the same request id.
@Suite struct ExportHandOverTests {
    let export = InterruptedExport(request: 7, export: .init(cell: "wiggle", format: .mp4, frames: 12, width: 320))

    @Test func anExportThatStoppedIsRunAgainForTheResumingPageOnce() {
        var state = ExportHandOver()
        let left = ClientConnection(id: 1) { _ in }, back = ClientConnection(id: 2) { _ in }
        let r1 = state.begin(export, for: left)
        #expect(r1)
        left.markClosed()
        let r2 = state.finish(interrupted: true)
        #expect(r2 == nil, "nobody had come back yet")
        let handed = state.handOver(to: back)
        #expect(handed?.export.request == 7 && handed?.export.export.cell == "wiggle" && handed?.runAgain == true)
        let r3 = state.handOver(to: back)
        #expect(r3 == nil, "handed over once")
        let r4 = state.begin(export, for: back)
        #expect(r4, "the run again may start")
    }

    @Test func anExportStillEndingGivesItsOutcomeToTheResumingPage() {
        var state = ExportHandOver()
        let left = ClientConnection(id: 1) { _ in }, back = ClientConnection(id: 2) { _ in }
        let r5 = state.begin(export, for: left)
        #expect(r5)
        let r6 = state.handOver(to: back)
        #expect(r6 == nil, "its page is still there: nothing to hand over")
        left.markClosed()
        let handed = state.handOver(to: back)
        #expect(handed?.export.request == 7 && handed?.runAgain == false)
        let r7 = state.finish(interrupted: true)
        #expect(r7 === back)
        let r8 = state.handOver(to: back)
        #expect(r8 == nil, "nothing kept to run again: the resuming page has it")
    }

    @Test func anExportThatFinishedForItsPageLeavesNothing() {
        var state = ExportHandOver()
        let page = ClientConnection(id: 1) { _ in }
        let r9 = state.begin(export, for: page)
        #expect(r9)
        let r10 = state.finish(interrupted: false)
        #expect(r10 == nil)
        let r11 = state.handOver(to: page)
        #expect(r11 == nil)
    }
}
