import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookProtocol
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

    /// Sessions that may live at once. Past it, the one nobody has been attached to for longest makes room; when
    /// every session has a page attached, a new one is refused.
    public let maxSessions: Int
    /// Sessions one connection may have made and left: a socket that says `hello` again and again (50,000 times
    /// in 22 s once made 50,001 sessions) loses the oldest it left as it makes more.
    static let sessionsPerConnection = 4
    /// How long a session that never opened a notebook is kept once its page left.
    static let emptySessionGrace: Duration = .seconds(10)

    public init(pool: RenderPool, photos: PhotoCache, gracePeriod: Duration, keptFrameBytes: Int = 16 << 20,
                maxSessions: Int = 2_000) {
        self.pool = pool
        self.photos = photos
        self.gracePeriod = gracePeriod
        self.keptFrameBytes = keptFrameBytes
        self.maxSessions = max(1, maxSessions)
        photos.whenImproved(shows: { [weak self] reference in self?.referencedPhotos().contains(reference) ?? false }) { [weak self] better in
            self?.photoImproved(better)
        }
    }

    /// Every session showing the photo hears that it gained a plane (the learned person matte).
    func photoImproved(_ better: LoadedPhoto) {
        let all = sessions.withLock { Array($0.values) }
        for session in all where session.shown.photo?.reference == better.reference { session.photoImproved(better) }
    }

    /// A new session for `connection`, with an unguessable id and resume key (128 bits each from the system's
    /// secure generator). Makes room first (see `maxSessions`, `sessionsPerConnection`), or throws when it cannot.
    func create(for connection: ClientConnection) throws(ProtocolError) -> Session {
        for id in connection.recordCreatedSession(limit: Self.sessionsPerConnection) { closeIfDetached(id) }
        if count >= maxSessions, let oldest = longestDetached() { closeIfDetached(oldest.id) }
        let owner = nextOwner.wrappingAdd(1, ordering: .relaxed).oldValue
        let session = Session(id: RandomID.make(), resumeKey: RandomID.make(), owner: owner, pool: pool, photos: photos,
                              keptFrameBytes: keptFrameBytes)
        let admitted = sessions.withLock { all in
            guard all.count < maxSessions else { return false }
            all[session.id] = session
            return true
        }
        guard admitted else {
            throw ProtocolError(.tooLarge, "the studio has \(maxSessions) sessions open, each with a page attached; try again later")
        }
        connection.created(session.id)
        return session
    }

    /// Closes the session `id` now if nobody is attached to it.
    private func closeIfDetached(_ id: String) {
        guard let session = find(id), session.detachedSince != nil else { return }
        let removed = sessions.withLock { all in
            guard all[id] === session else { return false }
            all[id] = nil
            return true
        }
        if removed { session.close() }
    }

    /// The session nobody has been attached to for longest, if any (session locks taken outside the hub's).
    private func longestDetached() -> Session? {
        let all = sessions.withLock { Array($0.values) }
        return all.compactMap { s in s.detachedSince.map { (s, $0) } }.min { $0.1 < $1.1 }?.0
    }

    func find(_ id: String) -> Session? { sessions.withLock { $0[id] } }

    /// Upload ids the live sessions use: their photos and any upload their notebooks name.
    public func referencedUploads() -> Set<String> {
        let all = sessions.withLock { Array($0.values) }
        var found = Set<String>()
        for session in all {
            let shown = session.shown
            let notebook = shown.notebook?.notebook
            if case .upload(let id) = shown.photo?.reference { found.insert(id) }
            if let notebook, let json = try? JSONEncoder().encode(notebook) { found.formUnion(UploadReferences.scan(json)) }
        }
        return found
    }

    /// The photos the live sessions (attached or within their grace) have open.
    public func referencedPhotos() -> Set<PhotoReference> {
        let all = sessions.withLock { Array($0.values) }
        return Set(all.compactMap { $0.shown.photo?.reference })
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// Drops sessions that have had no connection for longer than the grace period.
    @discardableResult
    public func sweep(now: ContinuousClock.Instant = .now) -> Int {
        // Each session's own lock is taken with the hub's released: a session busy under its lock must never
        // hold up `create` and every new page's hello behind the sweep.
        let all = sessions.withLock { Array($0.values) }
        let candidates = all.filter { $0.isExpired(now: now, grace: gracePeriod, emptyGrace: Self.emptySessionGrace) }
        let expired: [Session] = sessions.withLock { all in
            candidates.filter { session in
                guard all[session.id] === session else { return false }
                all[session.id] = nil
                return true
            }
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
