import DepthbookEffects
import Foundation
import Synchronization

/// Decoded photos shared by every session that opens them, the most recently used few kept in memory.
///
/// Twenty sessions opening the same sample decode it once. Loads are serialised: a second page asking for
/// the photo being decoded waits for that decode instead of starting its own.
final class PhotoCache: Sendable {
    private let capacity: Int
    private let entries = Mutex<[(PhotoReference, LoadedPhoto)]>([])
    private let loading = NSLock()

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func photo(_ reference: PhotoReference, load: (PhotoReference) throws -> LoadedPhoto) throws -> LoadedPhoto {
        if let hit = lookup(reference) { return hit }
        loading.lock()
        defer { loading.unlock() }
        if let hit = lookup(reference) { return hit }
        let loaded = try load(reference)
        entries.withLock { list in
            list.insert((reference, loaded), at: 0)
            if list.count > capacity { list.removeLast(list.count - capacity) }
        }
        return loaded
    }

    private func lookup(_ reference: PhotoReference) -> LoadedPhoto? {
        entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.0 == reference }) else { return nil }
            let entry = list.remove(at: index)
            list.insert(entry, at: 0)
            return entry.1
        }
    }
}
