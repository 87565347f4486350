import Foundation
import Synchronization

/// Where the editors of a load test wait, warm, until every one is: the drags then overlap as in a workshop
/// told "now drag", instead of the first sessions dragging alone while the last still open their photos.
final class StartLine: Sendable {
    private let expected: Atomic<Int>
    private let arrived = Atomic<Int>(0)

    init(count: Int) {
        expected = Atomic(count)
    }

    /// Waits until every session that has not withdrawn has arrived, or `timeout` seconds.
    func arrive(timeout: Int) {
        arrived.add(1, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while arrived.load(ordering: .relaxed) < expected.load(ordering: .relaxed), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// A session that failed before arriving: the others stop waiting for it.
    func withdraw() {
        expected.subtract(1, ordering: .relaxed)
    }
}
