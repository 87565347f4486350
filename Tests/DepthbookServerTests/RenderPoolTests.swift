import Dispatch
import DepthbookEngine
import Synchronization
import Testing
@testable import DepthbookServer

/// Fair sharing, checked by sequencing with semaphores rather than by timing. Every wait is bounded, so a
/// pool that never runs a job fails the test instead of hanging it. The limit is the other suites' five minutes:
/// with both cores' test threads held by tests that wait on PostgreSQL or frames, these queued past two.
@Suite(.timeLimit(.minutes(30)))
struct RenderPoolTests {
    /// Waits for `count` signals, 60 s at most in all (a bound for a broken pool, not a speed: other suites may hold both cores); false if they did not all come.
    static func awaitSignals(_ semaphore: DispatchSemaphore, count: Int) -> Bool {
        let deadline = DispatchTime.now() + 60
        return (0..<count).allSatisfy { _ in semaphore.wait(timeout: deadline) == .success }
    }

    final class Log: Sendable {
        let entries = Locked<[String]>([])
        func add(_ s: String) { entries.withLock { $0.append(s) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func ownersTakeTurnsWhateverTheyQueued() {
        let pool = RenderPool(width: 1)
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        // A's first job holds the only worker until everything is queued.
        pool.submit(owner: 1) { log.add("A0"); _ = gate.wait(timeout: .now() + 10); done.signal() }
        for i in 1...4 { pool.submit(owner: 1) { log.add("A\(i)"); done.signal() } }
        pool.submit(owner: 2) { log.add("B0"); done.signal() }
        pool.submit(owner: 3) { log.add("C0"); done.signal() }
        gate.signal()
        #expect(Self.awaitSignals(done, count: 7))
        #expect(log.all == ["A0", "B0", "C0", "A1", "A2", "A3", "A4"])
    }

    /// A session with only background work (a drag's preparation, a histogram) waits while another has a frame
    /// queued, although it was served less recently; within one owner frames still go first.
    @Test func backgroundWorkWaitsForEveryonesFrames() {
        let pool = RenderPool(width: 1)
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit(owner: 1) { log.add("A0"); _ = gate.wait(timeout: .now() + 10); done.signal() }
        pool.submit(owner: 2, priority: .background) { log.add("B prepare"); done.signal() }
        pool.submit(owner: 3, priority: .background) { log.add("C prepare"); done.signal() }
        pool.submit(owner: 3) { log.add("C frame"); done.signal() }
        pool.submit(owner: 1) { log.add("A1"); done.signal() }
        gate.signal()
        #expect(Self.awaitSignals(done, count: 5))
        #expect(log.all == ["A0", "C frame", "A1", "B prepare", "C prepare"])
    }

    /// A settled frame (a slider let go) goes before every session's drag frames, whoever was served least
    /// recently, and before its own session's other frames; settled frames go in the order they were asked for.
    @Test func settledFramesGoBeforeEveryonesDragFrames() {
        let pool = RenderPool(width: 1)
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit(owner: 1) { log.add("A coarse"); _ = gate.wait(timeout: .now() + 10); done.signal() }
        pool.submit(owner: 2) { log.add("B coarse"); done.signal() }
        pool.submit(owner: 3) { log.add("C coarse"); done.signal() }
        pool.submit(owner: 4, priority: .background) { log.add("D unseen"); done.signal() }
        pool.submit(owner: 4, priority: .settled) { log.add("D final mask"); done.signal() }
        pool.submit(owner: 4, priority: .settled) { log.add("D final result"); done.signal() }
        pool.submit(owner: 3, priority: .settled) { log.add("C final"); done.signal() }
        pool.submit(owner: 1) { log.add("A coarse 2"); done.signal() }
        gate.signal()
        #expect(Self.awaitSignals(done, count: 8))
        #expect(log.all == ["A coarse", "D final mask", "D final result", "C final", "B coarse", "A coarse 2", "C coarse", "D unseen"])
    }

    /// Two sessions exporting never hold every worker: the second export waits, and a third session's frame
    /// starts while the first export still runs.
    @Test func longJobsLeaveAWorkerForFrames() {
        let pool = RenderPool(width: 2)
        let log = Log()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit(owner: 1, priority: .long) {
            log.add("export A"); started.signal(); _ = release.wait(timeout: .now() + 10); done.signal()
        }
        #expect(Self.awaitSignals(started, count: 1))
        pool.submit(owner: 2, priority: .long) { log.add("export B"); done.signal() }
        pool.submit(owner: 3) { log.add("frame C"); started.signal(); done.signal() }
        // The frame runs beside export A; export B waits for A's long slot.
        #expect(Self.awaitSignals(started, count: 1))
        #expect(log.all == ["export A", "frame C"])
        release.signal()
        #expect(Self.awaitSignals(done, count: 3))
        #expect(log.all == ["export A", "frame C", "export B"])
    }

    /// What `submit` says of a job that has not started: the reason a page is told.
    @Test func aJobThatWaitsSaysWhy() {
        let pool = RenderPool(width: 2)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let hold: @Sendable () -> Void = { started.signal(); _ = release.wait(timeout: .now() + 10); done.signal() }
        #expect(pool.submit(owner: 1, priority: .long, hold) == nil, "an idle pool starts the job")
        #expect(Self.awaitSignals(started, count: 1))
        // Another session's export: the one long slot is taken.
        let export = pool.submit(owner: 2, priority: .long) { done.signal() }
        #expect(export == .longSlotsTaken(running: 1))
        #expect(export?.reason.contains("1 other export") == true)
        // The first session's next job waits for its own running one.
        #expect(pool.submit(owner: 1) { done.signal() } == .ownSessionBusy)
        // A third session's frame takes the free worker; a fourth's then finds both busy.
        #expect(pool.submit(owner: 3, hold) == nil)
        #expect(Self.awaitSignals(started, count: 1))
        #expect(pool.submit(owner: 4) { done.signal() } == .workersBusy(running: 2))
        release.signal()
        release.signal()
        #expect(Self.awaitSignals(done, count: 5))
    }

    final class Overlap: Sendable {
        let running = Atomic<Int>(0)
        let seen = Atomic<Bool>(false)
    }

    @Test func oneJobPerOwnerAtATimeEvenWithSpareWorkers() {
        let pool = RenderPool(width: 2)
        let overlap = Overlap()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<20 {
            pool.submit(owner: 7) {
                if overlap.running.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlap.seen.store(true, ordering: .sequentiallyConsistent)
                }
                for _ in 0..<10_000 { _ = overlap.running.load(ordering: .relaxed) }
                overlap.running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                done.signal()
            }
        }
        #expect(Self.awaitSignals(done, count: 20))
        let sawOverlap = overlap.seen.load(ordering: .sequentiallyConsistent)
        #expect(!sawOverlap)
        #expect(pool.queuedCount == 0)
    }

    @Test func twoOwnersUseBothWorkers() {
        let pool = RenderPool(width: 2)
        let bothIn = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        for owner: UInt64 in [1, 2] {
            pool.submit(owner: owner) { bothIn.signal(); _ = release.wait(timeout: .now() + 10); done.signal() }
        }
        // Both jobs must be running at once for both to signal before either is released: with one worker
        // the second job would wait behind the first, which waits for the release.
        #expect(Self.awaitSignals(bothIn, count: 2), "both owners' jobs ran at the same time")
        release.signal()
        release.signal()
        #expect(Self.awaitSignals(done, count: 2))
        #expect(pool.queuedCount == 0)
    }
}
