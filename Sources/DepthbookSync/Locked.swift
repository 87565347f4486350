import Foundation

/// A value only touched while holding a lock: the project's one lock type, used where `Synchronization.Mutex`
/// would be.
///
/// Why not `Mutex`: on Linux it locks with atomics and futex calls inside the uninstrumented standard library, so
/// ThreadSanitizer never sees the lock and reports every access it guards as a race (two reports from a four-thread
/// counter, none with this type). `NSLock` is a pthread mutex, which the sanitizer intercepts, so `make test`'s
/// sanitizer run sees real races only. The cost is one allocation per lock, made once.
public final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while no other thread can reach it.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Shared between threads only when what it guards may be: the lock keeps the accesses apart, not a value tied
/// to one thread (a non-Sendable reference handed out of `withLock` would still be shared unguarded).
extension Locked: @unchecked Sendable where Value: Sendable {}
