import Testing
@testable import DepthbookServer

/// The render state machine, driven directly: no pool, no sockets.
@Suite(.timeLimit(.minutes(30)))
struct RenderSchedulerTests {
    let slot = RenderSlot(cell: "mask", kind: .preview)

    func request(_ seq: Int, interactive: Bool = false, width: Int = 800) -> FrameRequest {
        FrameRequest(slot: slot, seq: seq, target: .preview(width: width), interactive: interactive)
    }

    func started(_ actions: [RenderScheduler.Action]) -> [RenderJob] {
        actions.compactMap { if case .start(let job) = $0 { return job } else { return nil } }
    }

    @Test func firstRequestStartsAtOnceAndIsDelivered() throws {
        var scheduler = RenderScheduler()
        let jobs = started(try scheduler.request(request(1)))
        #expect(jobs.count == 1)
        #expect(jobs[0].request.seq == 1 && !jobs[0].coarse)
        #expect(scheduler.finished(jobs[0], outcome: .rendered) == [.deliver(jobs[0])])
        #expect(scheduler.isCurrent(slot: slot, seq: 1, coarse: false))
        #expect(scheduler.inFlightCount == 0)
    }

    @Test func aBurstKeepsOneInFlightAndOnlyTheNewestPending() throws {
        var scheduler = RenderScheduler()
        let first = started(try scheduler.request(request(1)))[0]
        var cancels: [Int] = []
        for seq in 2...100 {
            let actions = try scheduler.request(request(seq))
            #expect(started(actions).isEmpty, "nothing new starts while one is in flight")
            for case .cancel(let ticket) in actions { cancels.append(ticket) }
        }
        #expect(Set(cancels) == [first.ticket], "the superseded render in flight is cancelled")
        #expect(scheduler.inFlightCount == 1)
        // The first render ends (cancelled or not): its frame is stale; the newest one starts.
        let next = scheduler.finished(first, outcome: .rendered)
        #expect(!next.contains(.deliver(first)))
        let newest = started(next)
        #expect(newest.map(\.request.seq) == [100])
        #expect(scheduler.finished(newest[0], outcome: .rendered) == [.deliver(newest[0])])
    }

    @Test func staleSequenceNumbersAreRefused() throws {
        var scheduler = RenderScheduler()
        _ = try scheduler.request(request(5))
        #expect(throws: RenderScheduler.RequestError.stale(seq: 4, newest: 5, cell: slot.cell)) { try scheduler.request(request(4)) }
        // The same number again is allowed (a change re-renders dependent cells with its own seq).
        _ = try scheduler.request(request(5))
    }

    @Test func interactiveRendersCoarseThenFull() throws {
        var scheduler = RenderScheduler()
        let coarse = started(try scheduler.request(request(3, interactive: true, width: 1280)))[0]
        #expect(coarse.coarse)
        #expect(coarse.target == .preview(width: 640))
        let afterCoarse = scheduler.finished(coarse, outcome: .rendered)
        #expect(afterCoarse.first == .deliver(coarse))
        let full = started(afterCoarse)
        #expect(full.count == 1 && !full[0].coarse && full[0].request.seq == 3 && full[0].target == .preview(width: 1280))
        #expect(scheduler.finished(full[0], outcome: .rendered) == [.deliver(full[0])])
    }

    /// Only the full frame of a request made at rest and in view is settled (it goes first in the pool): not a
    /// drag's coarse pass, nor the full pass that follows it, nor a cell out of view.
    @Test func onlyAFullFrameAtRestInViewIsSettled() throws {
        var scheduler = RenderScheduler()
        let coarse = started(try scheduler.request(request(1, interactive: true)))[0]
        let fullAfterCoarse = started(scheduler.finished(coarse, outcome: .rendered))[0]
        #expect(!coarse.isSettled && !fullAfterCoarse.isSettled)
        #expect(coarse.poolPriority == .frame && fullAfterCoarse.poolPriority == .frame)
        _ = scheduler.finished(fullAfterCoarse, outcome: .rendered)
        let atRest = started(try scheduler.request(request(2)))[0]
        #expect(atRest.isSettled && atRest.poolPriority == .settled)
        var unseen = request(3)
        unseen.unseen = true
        var other = RenderScheduler()
        let hidden = started(try other.request(unseen))[0]
        #expect(!hidden.isSettled && hidden.poolPriority == .background)
    }

    @Test func aNewerChangeCancelsTheFullPassAfterACoarseOne() throws {
        var scheduler = RenderScheduler()
        let coarse = started(try scheduler.request(request(1, interactive: true)))[0]
        let full = started(scheduler.finished(coarse, outcome: .rendered))[0]
        let actions = try scheduler.request(request(2, interactive: true))
        #expect(actions == [.cancel(ticket: full.ticket)])
        let next = scheduler.finished(full, outcome: .cancelled)
        #expect(started(next).map(\.request.seq) == [2])
        // A coarse frame was the last shown: the next change is rendered sharp, and not cancelled by the one after.
        #expect(started(next).first?.refresh == true && started(next).first?.coarse == false)
    }

    @Test func aCoarseRenderInFlightFinishesAndIsDeliveredDuringADrag() throws {
        var scheduler = RenderScheduler()
        let first = started(try scheduler.request(request(1, interactive: true)))[0]
        #expect(first.coarse)
        // Newer positions arrive while the coarse render runs: it is not cancelled, only the pending one changes.
        #expect(try scheduler.request(request(2, interactive: true)).isEmpty)
        #expect(try scheduler.request(request(3, interactive: true)).isEmpty)
        let after = scheduler.finished(first, outcome: .rendered)
        #expect(after.first == .deliver(first), "the picture keeps coming while the slider moves")
        let next = started(after)
        #expect(next.map(\.request.seq) == [3], "position 2 was replaced, never rendered")
        #expect(first.target == .preview(width: 400), "a coarse pass is at half width")
        #expect(next[0].refresh && next[0].target == .preview(width: 800), "after a coarse frame the drag gets a sharp one")
        #expect(scheduler.isCurrent(slot: slot, seq: 1, coarse: true))
        #expect(!scheduler.isCurrent(slot: slot, seq: 1, coarse: false))
        // The slider stops: the final value asks for a full frame, which follows the refresh in flight (not
        // cancelled: a refresh is shown even when the slider moved on).
        #expect(try scheduler.request(request(4, interactive: false)).isEmpty)
        let afterSecond = scheduler.finished(next[0], outcome: .rendered)
        #expect(afterSecond.first == .deliver(next[0]))
        let final = started(afterSecond)
        #expect(final.count == 1 && final[0].request.seq == 4 && !final[0].coarse)
        #expect(scheduler.finished(final[0], outcome: .rendered) == [.deliver(final[0])])
    }

    @Test func framesNeverGoBackInSeq() throws {
        var scheduler = RenderScheduler()
        let coarse = started(try scheduler.request(request(5, interactive: true)))[0]
        let full = started(scheduler.finished(coarse, outcome: .rendered))[0]
        // A newer full request cancels the full pass; if that pass still completes, it is not delivered.
        #expect(try scheduler.request(request(6)) == [.cancel(ticket: full.ticket)])
        let next = scheduler.finished(full, outcome: .rendered)
        #expect(!next.contains(.deliver(full)))
        #expect(started(next).map(\.request.seq) == [6])
    }

    @Test func failuresAreReportedOnlyForTheNewestRequest() throws {
        var scheduler = RenderScheduler()
        let first = started(try scheduler.request(request(1)))[0]
        _ = try scheduler.request(request(2))
        let afterStale = scheduler.finished(first, outcome: .failed("no matte"))
        #expect(!afterStale.contains { if case .reportFailure = $0 { return true } else { return false } })
        let second = started(afterStale)[0]
        #expect(scheduler.finished(second, outcome: .failed("no matte")) == [.reportFailure(second, message: "no matte")])
    }

    @Test func cancelAllDropsPendingAndNeverDeliversTheRunningJob() throws {
        var scheduler = RenderScheduler()
        let running = started(try scheduler.request(request(1)))[0]
        _ = try scheduler.request(request(2))
        #expect(scheduler.cancelAll() == [.cancel(ticket: running.ticket)])
        #expect(scheduler.finished(running, outcome: .rendered).isEmpty)
        #expect(!scheduler.isCurrent(slot: slot, seq: 2, coarse: true), "nothing from before the reset goes out")
        #expect(scheduler.inFlightCount == 0)
        // Old sequence numbers stay refused after the reset.
        #expect(throws: RenderScheduler.RequestError.stale(seq: 1, newest: 2, cell: slot.cell)) { try scheduler.request(request(1)) }
    }

    @Test func slotsAreIndependent() throws {
        var scheduler = RenderScheduler()
        let a = started(try scheduler.request(request(1)))
        let crop = FrameRequest(slot: RenderSlot(cell: "mask", kind: .crop), seq: 1, target: .crop(x: 0, y: 0, width: 10, height: 10))
        let b = started(try scheduler.request(crop))
        #expect(a.count == 1 && b.count == 1)
        #expect(scheduler.inFlightCount == 2)
    }

    @Test func aFinishedUnknownJobIsIgnored() {
        var scheduler = RenderScheduler()
        let ghost = RenderJob(ticket: 99, request: request(1), coarse: false)
        #expect(scheduler.finished(ghost, outcome: .rendered).isEmpty)
    }

    @Test func droppedWorkIsNeverDeliveredButDeliveredFramesStayCurrent() throws {
        var scheduler = RenderScheduler()
        let first = started(try scheduler.request(request(1)))[0]
        _ = scheduler.finished(first, outcome: .rendered)
        let second = started(try scheduler.request(request(2)))[0]
        _ = try scheduler.request(request(3))  // pending behind the second
        let slot = first.request.slot
        #expect(scheduler.dropWork() == [.cancel(ticket: second.ticket)])
        // The cancelled render still finishing delivers nothing and starts nothing.
        #expect(scheduler.finished(second, outcome: .rendered).isEmpty)
        #expect(scheduler.inFlightCount == 0)
        // A frame delivered before stays replayable only while it is the newest request's.
        #expect(!scheduler.isCurrent(slot: slot, seq: 1, coarse: false))
        #expect(scheduler.isCurrent(slot: slot, seq: 1, coarse: true))
        // New requests render as usual.
        #expect(started(try scheduler.request(request(4))).map(\.request.seq) == [4])
    }

    /// With the machine to itself a drag alternates quick and sharp frames; while other sessions wait, every
    /// fourth frame is sharp.
    @Test(arguments: [false, true])
    func aLongDragGetsSharpRefreshes(shared: Bool) throws {
        var scheduler = RenderScheduler()
        var running = started(try scheduler.request(request(1, interactive: true)))[0]
        var delivered: [(seq: Int, coarse: Bool)] = []
        // The slider keeps moving: a newer change is always waiting when a render ends.
        for seq in 2...12 {
            _ = try scheduler.request(request(seq, interactive: true))
            let actions = scheduler.finished(running, outcome: .rendered, shared: shared)
            for case .deliver(let job) in actions { delivered.append((job.request.seq, job.coarse)) }
            running = try #require(started(actions).first)
            // A refresh in flight is never cancelled by the next change.
            if running.refresh { #expect(try scheduler.request(request(seq, interactive: true)).isEmpty) }
        }
        let kinds = delivered.map(\.coarse)
        let expected = shared ? [true, true, true, false, true, true, true, false] : [true, false, true, false, true, false, true, false]
        #expect(Array(kinds.prefix(8)) == expected)
        #expect(delivered.map(\.seq) == delivered.map(\.seq).sorted(), "still in seq order")
        #expect(running.target == .preview(width: 400) || running.refresh)
    }
}
