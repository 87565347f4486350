import DepthbookEngine
import Foundation
import Synchronization

/// Every live session by id, and the grace period that keeps a detached one for a reconnecting page.
public final class SessionHub: Sendable {
    public let gracePeriod: Duration
    private let pool: RenderPool
    /// Where every session gets its decoded photo when it renders.
    public let photos: PhotoCache
    private let sessions = Locked<[String: Session]>([:])
    private let nextOwner = Atomic<UInt64>(1)

    private let keptFrameBytes: Int

    public init(pool: RenderPool, photos: PhotoCache, gracePeriod: Duration, keptFrameBytes: Int = 16 << 20) {
        self.pool = pool
        self.photos = photos
        self.gracePeriod = gracePeriod
        self.keptFrameBytes = keptFrameBytes
    }

    /// A new session with an unguessable id and resume key (128 bits each from the system's secure generator).
    func create() -> Session {
        let owner = nextOwner.wrappingAdd(1, ordering: .relaxed).oldValue
        let session = Session(id: RandomID.make(), resumeKey: RandomID.make(), owner: owner, pool: pool, photos: photos,
                              keptFrameBytes: keptFrameBytes)
        sessions.withLock { $0[session.id] = session }
        return session
    }

    func find(_ id: String) -> Session? { sessions.withLock { $0[id] } }

    /// Upload ids the live sessions use: their photos and any upload their notebooks name.
    public func referencedUploads() -> Set<String> {
        let all = sessions.withLock { Array($0.values) }
        var found = Set<String>()
        for session in all {
            let shown = session.shown
            let notebook = shown.notebook
            if case .upload(let id) = shown.photo?.reference { found.insert(id) }
            if let notebook, let json = try? JSONEncoder().encode(notebook) { found.formUnion(UploadReferences.scan(json)) }
        }
        return found
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// Drops sessions that have had no connection for longer than the grace period.
    @discardableResult
    public func sweep(now: ContinuousClock.Instant = .now) -> Int {
        let expired: [Session] = sessions.withLock { all in
            let gone = all.values.filter { session in
                session.isExpired(now: now, grace: gracePeriod)
            }
            for session in gone { all[session.id] = nil }
            return gone
        }
        for session in expired { session.close() }
        return expired.count
    }

    /// Ends every session (server shutdown).
    public func closeAll() {
        let all = sessions.withLock { all in defer { all.removeAll() }; return Array(all.values) }
        for session in all { session.close() }
    }
}
