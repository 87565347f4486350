import Synchronization

/// Ids for the WebSockets and HTTP transactions of one transport, kept in lws's per-connection user data
/// (8 bytes; 0 means none yet).
final class ConnectionIDs: Sendable {
    private let next = Atomic<UInt64>(1)

    func make() -> UInt64 { next.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// The id stored in a connection's user data, nil before one was given.
    static func stored(_ user: UnsafeMutableRawPointer?) -> UInt64? {
        guard let id = user?.load(as: UInt64.self), id != 0 else { return nil }
        return id
    }

    /// A new id, stored in the connection's user data.
    func assign(_ user: UnsafeMutableRawPointer?) -> UInt64 {
        let id = make()
        user?.storeBytes(of: id, as: UInt64.self)
        return id
    }
}
