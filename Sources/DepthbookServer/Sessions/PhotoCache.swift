import DepthbookEffects
import Foundation
import Synchronization

/// Decoded photos shared by every session that opens them, the most recently used kept in memory up to a
/// byte limit (part of the server's memory budget).
///
/// It is the only long-lived owner of a decoded photo: sessions keep the reference and ask here when they
/// render, so a photo evicted while its session sits idle is decoded again when next needed. Twenty
/// sessions opening the same sample decode it once; loads are serialised, so a second page asking for the
/// photo being decoded waits for that decode instead of starting its own.
public final class PhotoCache: Sendable {
    public let byteLimit: Int
    private let load: @Sendable (PhotoReference) throws -> LoadedPhoto
    private let entries = Mutex<[(PhotoReference, LoadedPhoto)]>([])
    private let loading = NSLock()

    public init(byteLimit: Int, load: @escaping @Sendable (PhotoReference) throws -> LoadedPhoto) {
        self.byteLimit = byteLimit
        self.load = load
    }

    public func photo(_ reference: PhotoReference) throws -> LoadedPhoto {
        if let hit = lookup(reference) { return hit }
        loading.lock()
        defer { loading.unlock() }
        if let hit = lookup(reference) { return hit }
        let loaded = try load(reference)
        entries.withLock { list in
            list.insert((reference, loaded), at: 0)
            // The newest always stays, even alone over the limit: it is the one being used.
            var total = 0
            var kept = 0
            for (_, photo) in list {
                total += photo.byteCount
                if kept > 0 && total > byteLimit { break }
                kept += 1
            }
            list.removeLast(list.count - kept)
        }
        return loaded
    }

    /// Bytes of the decoded photos kept.
    public var bytes: Int { entries.withLock { $0.reduce(0) { $0 + $1.1.byteCount } } }

    private func lookup(_ reference: PhotoReference) -> LoadedPhoto? {
        entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.0 == reference }) else { return nil }
            let entry = list.remove(at: index)
            list.insert(entry, at: 0)
            return entry.1
        }
    }
}
