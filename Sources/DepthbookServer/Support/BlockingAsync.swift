import DepthbookEngine
import Dispatch

/// Runs async work from a thread that may block (the connections' serial queues, start-up), waiting at most
/// `timeout`. Never call it from a Swift concurrency task: it holds its thread until the work ends.
enum BlockingAsync {
    struct TimedOut: Error, CustomStringConvertible {
        let seconds: Int
        var description: String { "no answer within \(seconds) s" }
    }

    static func run<T: Sendable>(timeout: Duration, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        let seconds = Int(timeout.components.seconds)
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else {
            task.cancel()
            throw TimedOut(seconds: seconds)
        }
        return try outcome.withLock { $0! }.get()
    }
}
