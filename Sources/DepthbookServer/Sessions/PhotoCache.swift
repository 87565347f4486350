import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation

/// Decoded photos shared by every session that opens them, the most recently used kept in memory up to a
/// byte limit (part of the server's memory budget).
///
/// It is the only long-lived owner of a decoded photo: sessions keep the reference and ask here when they
/// render, so a photo evicted while its session sits idle is decoded again when next needed. Twenty
/// sessions opening the same sample decode it once; loads are serialised, so a second page asking for the
/// photo being decoded waits for that decode instead of starting its own.
///
/// A photo that awaits a plane made in the background (the learned person matte) is handed to the `improver`
/// as it is kept; when that is done the better photo takes its place here and `whenImproved` handlers hear of
/// it (the sessions showing it re-render).
public final class PhotoCache: Sendable {
    public let byteLimit: Int
    private let load: @Sendable (PhotoReference) throws -> LoadedPhoto
    private let improver: PhotoImprover?
    private let kept = Locked(Kept())
    private let loading = NSLock()
    private let improvedHandlers = Locked<[@Sendable (LoadedPhoto) -> Void]>([])

    private struct Entry {
        let reference: PhotoReference
        let photo: LoadedPhoto
        var lastUsed: ContinuousClock.Instant = .now
    }

    private struct Kept {
        /// Most recently used first.
        var list: [Entry] = []
        /// The upload kept by `offer` that nobody has opened yet.
        var unopenedUpload: PhotoReference?

        mutating func opened(_ reference: PhotoReference) {
            if unopenedUpload == reference { unopenedUpload = nil }
        }
    }

    public init(byteLimit: Int, improver: PhotoImprover? = nil,
                load: @escaping @Sendable (PhotoReference) throws -> LoadedPhoto) {
        self.byteLimit = byteLimit
        self.improver = improver
        self.load = load
    }

    /// Calls `handler` with each photo made better in the background, once it is the one kept here.
    public func whenImproved(_ handler: @escaping @Sendable (LoadedPhoto) -> Void) {
        improvedHandlers.withLock { $0.append(handler) }
    }

    private func improveInBackground(_ loaded: LoadedPhoto) {
        improver?.start(loaded) { [weak self] better in self?.adopt(better) }
    }

    /// The better photo replaces the one kept under its reference. One let go meanwhile stays gone: whoever opens
    /// it again decodes it anew (and improves it again).
    private func adopt(_ better: LoadedPhoto) {
        let replaced = kept.withLock { kept in
            guard let index = kept.list.firstIndex(where: { $0.reference == better.reference }) else { return false }
            kept.list[index] = Entry(reference: better.reference, photo: better, lastUsed: kept.list[index].lastUsed)
            return true
        }
        guard replaced else { return }
        for handler in improvedHandlers.withLock({ $0 }) { handler(better) }
    }

    public func photo(_ reference: PhotoReference) throws -> LoadedPhoto {
        if let hit = lookup(reference) { return hit }
        loading.lock()
        defer { loading.unlock() }
        if let hit = lookup(reference) { return hit }
        let loaded = try load(reference)
        kept.withLock { kept in
            kept.opened(reference)
            kept.list.insert(Entry(reference: reference, photo: loaded), at: 0)
            // The newest always stays, even alone over the limit: it is the one being used.
            var total = 0
            var count = 0
            for entry in kept.list {
                total += entry.photo.byteCount
                if count > 0 && total > byteLimit { break }
                count += 1
            }
            kept.list.removeLast(kept.list.count - count)
        }
        improveInBackground(loaded)
        return loaded
    }

    /// Keeps a photo decoded elsewhere (an upload, decoded to check it) so the page that opens it next does
    /// not wait for a second decode (about a second for a 12 MP HEIC). Only the newest such photo is kept until
    /// it is opened, only if it fits beside the photos in use (which it never pushes out: uploading is not
    /// using), and never in place of one already kept.
    public func offer(_ loaded: LoadedPhoto) {
        let keptIt = kept.withLock { kept in
            if let previous = kept.unopenedUpload, previous != loaded.reference {
                kept.list.removeAll { $0.reference == previous }
                kept.unopenedUpload = nil
            }
            guard !kept.list.contains(where: { $0.reference == loaded.reference }),
                  kept.list.reduce(loaded.byteCount, { $0 + $1.photo.byteCount }) <= byteLimit else { return false }
            kept.list.append(Entry(reference: loaded.reference, photo: loaded))
            kept.unopenedUpload = loaded.reference
            return true
        }
        // The page that uploaded it opens it next: its matte may as well be under way.
        if keptIt { improveInBackground(loaded) }
    }

    /// Bytes of the decoded photos kept.
    public var bytes: Int { kept.withLock { $0.list.reduce(0) { $0 + $1.photo.byteCount } } }

    /// Lets go of the photos no live session shows that nobody has asked for in `idle`, and with them their
    /// render caches: once people have left, the studio gives back what their photos held instead of keeping
    /// hundreds of MB for a visitor who may never come. Returns how many were let go.
    @discardableResult
    public func releaseUnused(keeping inUse: Set<PhotoReference>, idle: Duration,
                              now: ContinuousClock.Instant = .now) -> Int {
        let released: [Entry] = kept.withLock { kept in
            let (gone, stay) = kept.list.reduce(into: ([Entry](), [Entry]())) { parts, entry in
                if inUse.contains(entry.reference) || now - entry.lastUsed < idle {
                    parts.1.append(entry)
                } else {
                    parts.0.append(entry)
                }
            }
            kept.list = stay
            if let upload = kept.unopenedUpload, gone.contains(where: { $0.reference == upload }) { kept.unopenedUpload = nil }
            return gone
        }
        // The photos (and their caches) are freed here, outside the lock, as `released` goes.
        return released.count
    }

    private func lookup(_ reference: PhotoReference) -> LoadedPhoto? {
        kept.withLock { kept in
            guard let index = kept.list.firstIndex(where: { $0.reference == reference }) else { return nil }
            kept.opened(reference)
            var entry = kept.list.remove(at: index)
            entry.lastUsed = .now
            kept.list.insert(entry, at: 0)
            return entry.photo
        }
    }
}
