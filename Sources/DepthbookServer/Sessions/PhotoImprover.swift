import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation

/// Work that makes a decoded photo better after it has opened: today the learned person matte, about a second
/// of both cores for a 12 MP photo. It used to run while the photo was decoded, so an upload's reply and the
/// first frame waited for it; now the photo opens at once (its subject from depth) and this runs beside it.
///
/// Each job runs on the render pool as long work under an owner of its own: frames always keep a worker
/// (`RenderPool.Priority.long`), one photo is improved at a time, and the idle trim waits for it too.
public final class PhotoImprover: Sendable {
    /// The render pool's name for this work; sessions are numbered from 1.
    static let owner: RenderPool.Owner = 0

    private let pool: RenderPool
    private let improve: @Sendable (LoadedPhoto) -> LoadedPhoto
    /// Photos being improved: one job per photo however many pages open it meanwhile.
    private let running = Locked<Set<PhotoReference>>([])

    /// `improve` returns the photo with what it awaited, or without it (and no longer awaiting) when that
    /// could not be made: a page is never left waiting for a plane that will not come.
    public init(pool: RenderPool, improve: @escaping @Sendable (LoadedPhoto) -> LoadedPhoto) {
        self.pool = pool
        self.improve = improve
    }

    /// Improves `loaded` in the background if it awaits something and no job for it runs, then calls `done`
    /// with the better photo.
    func start(_ loaded: LoadedPhoto, then done: @escaping @Sendable (LoadedPhoto) -> Void) {
        guard loaded.awaitsPersonMatte, running.withLock({ $0.insert(loaded.reference).inserted }) else { return }
        pool.submit(owner: Self.owner, priority: .long) { [self] in
            let better = improve(loaded)
            running.withLock { _ = $0.remove(loaded.reference) }
            done(better)
        }
    }
}
