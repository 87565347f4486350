/// Requests for the same answer, merged while one computation for it is waiting or running: the first
/// request starts the work, later ones join it, and all get the one result. At most `limit` distinct keys
/// wait at once, so one client asking thousands of questions queues at most `limit` computations.
struct Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Waiter = @Sendable (Value) -> Void

    enum Joined: Equatable {
        /// Nothing was waiting for this key: the caller starts the work.
        case first
        /// A computation for this key is under way; the waiter gets its result.
        case joined
        /// `limit` other keys are waiting: refused, nothing queued.
        case full
    }

    let limit: Int
    private var waiting: [Key: [Waiter]] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    mutating func join(_ key: Key, _ waiter: @escaping Waiter) -> Joined {
        if waiting[key] != nil {
            waiting[key]!.append(waiter)
            return .joined
        }
        guard waiting.count < limit else { return .full }
        waiting[key] = [waiter]
        return .first
    }

    /// The computation for `key` ended: everyone who waited for it, to be answered.
    mutating func finish(_ key: Key) -> [Waiter] {
        waiting.removeValue(forKey: key) ?? []
    }

    var pendingKeys: Int { waiting.count }
}
