import Dispatch
import Synchronization
import Testing
@testable import DepthbookServer

/// Fair sharing, checked by sequencing with semaphores rather than by timing.
struct RenderPoolTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ s: String) { entries.withLock { $0.append(s) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func ownersTakeTurnsWhateverTheyQueued() {
        let pool = RenderPool(width: 1)
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        // A's first job holds the only worker until everything is queued.
        pool.submit(owner: 1) { log.add("A0"); gate.wait(); done.signal() }
        for i in 1...4 { pool.submit(owner: 1) { log.add("A\(i)"); done.signal() } }
        pool.submit(owner: 2) { log.add("B0"); done.signal() }
        pool.submit(owner: 3) { log.add("C0"); done.signal() }
        gate.signal()
        for _ in 0..<7 { done.wait() }
        #expect(log.all == ["A0", "B0", "C0", "A1", "A2", "A3", "A4"])
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
        for _ in 0..<20 { done.wait() }
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
            pool.submit(owner: owner) { bothIn.signal(); release.wait(); done.signal() }
        }
        // Both jobs must be running at once for both to signal before either is released.
        bothIn.wait()
        bothIn.wait()
        release.signal()
        release.signal()
        done.wait()
        done.wait()
    }
}
