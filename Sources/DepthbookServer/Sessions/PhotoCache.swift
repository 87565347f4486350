import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation

/// What a render needs of a photo: the full image (exports, 1:1 crops, the network), or a preview of the
/// whole frame at some width, which a copy reduced for previews serves when it is at least that wide.
public enum PhotoUse: Sendable, Equatable {
    case full
    case preview(width: Int)
    /// Facts, statistics and histograms (measured at most 1600 px wide): any kept copy serves.
    case any

    /// A preview of the whole frame is served by a reduced copy; a crop needs the full image.
    public static func render(_ target: CellRenderRequest) -> PhotoUse {
        target.region == nil ? .preview(width: target.width) : .full
    }
}

extension LoadedPhoto {
    /// Whether renders for `use` come out of this photo as they would out of the full one.
    func serves(_ use: PhotoUse) -> Bool {
        guard photo.isReduced else { return true }
        switch use {
        case .full: return false
        case .preview(let width): return width <= photo.image.width
        case .any: return true
        }
    }
}

/// Decoded photos shared by every session that opens them, the most recently used kept in memory up to a
/// byte limit (part of the server's memory budget).
///
/// It is the only long-lived owner of a decoded photo: sessions keep the reference and ask here when they
/// render, so a photo let go while its session sits idle is decoded again when next needed. Twenty
/// sessions opening the same sample decode it once; loads are serialised, so a second page asking for the
/// photo being decoded waits for that decode instead of starting its own.
///
/// Each photo is kept twice while there is room: whole, and reduced for previews (`reduce`, at most 2048 px a
/// side: 9 MB of a 12 MP photo's 37). Previews render from the reduced copy, with a render cache of its own.
/// When room runs short the whole photos go first, oldest first, and the reduced copies stay: twenty people
/// each on their own 12 MP photo keep dragging without a decode, and only an export or a crop decodes its
/// photo again (taking over the planes the background made for the kept copy, `carryPlanes`).
///
/// A photo that awaits a plane made in the background (the learned person matte) is handed to the `improver`
/// as it is kept; when that is done the better photo takes its place here and `whenImproved` listeners hear of
/// it (the sessions showing it re-render). One let go for room meanwhile comes back if a page still shows it:
/// otherwise that page would say the matte is coming forever, and the network's seconds would be thrown away.
public final class PhotoCache: Sendable {
    public let byteLimit: Int
    private let load: @Sendable (PhotoReference) throws -> LoadedPhoto
    private let reduce: @Sendable (LoadedPhoto) -> LoadedPhoto?
    private let carryPlanes: @Sendable (_ kept: LoadedPhoto, _ fresh: LoadedPhoto) -> LoadedPhoto
    private let improver: PhotoImprover?
    private let kept = Locked(Kept())
    private let loading = NSLock()
    private let improvedListeners = Locked<[ImprovedListener]>([])

    private struct ImprovedListener {
        /// Whether a page shows the photo (asked before it is put back for them).
        let shows: @Sendable (PhotoReference) -> Bool
        let heard: @Sendable (LoadedPhoto) -> Void
    }

    private struct Entry {
        let reference: PhotoReference
        /// The whole photo; nil once let go for room (decoded again when something needs it).
        var full: LoadedPhoto?
        /// The copy reduced for previews; nil when the photo is small enough to serve every render itself.
        var reduced: LoadedPhoto?
        var lastUsed: ContinuousClock.Instant = .now

        var bytes: Int { (full?.byteCount ?? 0) + (reduced?.byteCount ?? 0) }

        /// The kept copy that serves `use`, if any.
        func serving(_ use: PhotoUse) -> LoadedPhoto? {
            if let reduced, reduced.serves(use) { return reduced }
            return full
        }
    }

    private struct Kept {
        /// Most recently used first.
        var list: [Entry] = []
        /// The upload kept by `offer` that nobody has opened yet.
        var unopenedUpload: PhotoReference?

        mutating func opened(_ reference: PhotoReference) {
            if unopenedUpload == reference { unopenedUpload = nil }
        }

        var bytes: Int { list.reduce(0) { $0 + $1.bytes } }

        /// Within `limit`: whole photos let go first, oldest first, then whole entries, oldest first. The newest
        /// entry always stays whole, even alone over the limit: it is the one being used.
        mutating func trim(to limit: Int) {
            var total = bytes
            for index in list.indices.dropFirst().reversed() where total > limit {
                guard let full = list[index].full, list[index].reduced != nil else { continue }
                total -= full.byteCount
                list[index].full = nil
            }
            while total > limit, list.count > 1 {
                total -= list.removeLast().bytes
            }
            if let upload = unopenedUpload, !list.contains(where: { $0.reference == upload }) { unopenedUpload = nil }
        }
    }

    /// `reduce` makes the copy for previews (nil: the photo needs none); `carryPlanes` gives a photo decoded
    /// again what the background made for the copy kept of it (its learned person matte).
    public init(byteLimit: Int, improver: PhotoImprover? = nil,
                reduce: @escaping @Sendable (LoadedPhoto) -> LoadedPhoto? = { _ in nil },
                carryPlanes: @escaping @Sendable (_ kept: LoadedPhoto, _ fresh: LoadedPhoto) -> LoadedPhoto = { $1 },
                load: @escaping @Sendable (PhotoReference) throws -> LoadedPhoto) {
        self.byteLimit = byteLimit
        self.improver = improver
        self.reduce = reduce
        self.carryPlanes = carryPlanes
        self.load = load
    }

    /// Calls `heard` with each photo made better in the background, once it is the one kept here. `shows` says
    /// whether the listener shows a photo: one let go before it was made better is kept again only if so.
    public func whenImproved(shows: @escaping @Sendable (PhotoReference) -> Bool = { _ in false },
                             _ heard: @escaping @Sendable (LoadedPhoto) -> Void) {
        improvedListeners.withLock { $0.append(ImprovedListener(shows: shows, heard: heard)) }
    }

    private func improveInBackground(_ loaded: LoadedPhoto) {
        improver?.start(loaded) { [weak self] better in self?.adopt(better) }
    }

    /// The better photo replaces the one kept under its reference, and its reduced copy is made again from it.
    /// One let go meanwhile comes back as the newest (its pages are about to render it) if a page shows it;
    /// otherwise it stays gone, and whoever opens it again decodes it anew (and improves it again).
    private func adopt(_ better: LoadedPhoto) {
        let listeners = improvedListeners.withLock { $0 }
        let isKept = kept.withLock { kept in kept.list.contains { $0.reference == better.reference } }
        guard isKept || listeners.contains(where: { $0.shows(better.reference) }) else { return }
        let reduced = reduce(better)
        kept.withLock { kept in
            if let index = kept.list.firstIndex(where: { $0.reference == better.reference }) {
                kept.list[index].full = better
                kept.list[index].reduced = reduced
            } else {
                kept.list.insert(Entry(reference: better.reference, full: better, reduced: reduced), at: 0)
            }
            kept.trim(to: byteLimit)
        }
        for listener in listeners { listener.heard(better) }
    }

    /// The photo as `use` needs it: a kept copy that serves it, or the photo decoded (once however many ask).
    public func photo(_ reference: PhotoReference, for use: PhotoUse = .full) throws -> LoadedPhoto {
        if let hit = lookup(reference, use) { return hit }
        loading.lock()
        defer { loading.unlock() }
        if let hit = lookup(reference, use) { return hit }
        let fresh = try load(reference)
        // A copy kept for previews may already carry what the background made (a photo decoded again for an
        // export): the full photo takes it over rather than differing from the previews or running it again.
        let keptReduced = kept.withLock { $0.list.first { $0.reference == reference }?.reduced }
        let full = keptReduced.map { carryPlanes($0, fresh) } ?? fresh
        let reduced = keptReduced ?? reduce(full)
        kept.withLock { kept in
            kept.opened(reference)
            kept.list.removeAll { $0.reference == reference }
            kept.list.insert(Entry(reference: reference, full: full, reduced: reduced), at: 0)
            kept.trim(to: byteLimit)
        }
        improveInBackground(full)
        return Entry(reference: reference, full: full, reduced: reduced).serving(use) ?? full
    }

    /// Keeps a photo decoded elsewhere (an upload, decoded to check it) so the page that opens it next does
    /// not wait for a second decode (about a second for a 12 MP HEIC). Only the newest such photo is kept until
    /// it is opened, only if it fits beside the photos in use (which it never pushes out: uploading is not
    /// using), and never in place of one already kept.
    public func offer(_ loaded: LoadedPhoto) {
        guard !kept.withLock({ $0.list.contains { $0.reference == loaded.reference } }) else { return }
        let reduced = reduce(loaded)
        let keptIt = kept.withLock { kept in
            if let previous = kept.unopenedUpload, previous != loaded.reference {
                kept.list.removeAll { $0.reference == previous }
                kept.unopenedUpload = nil
            }
            let entry = Entry(reference: loaded.reference, full: loaded, reduced: reduced)
            guard !kept.list.contains(where: { $0.reference == loaded.reference }),
                  kept.bytes + entry.bytes <= byteLimit else { return false }
            kept.list.append(entry)
            kept.unopenedUpload = loaded.reference
            return true
        }
        // The page that uploaded it opens it next: its matte may as well be under way.
        if keptIt { improveInBackground(loaded) }
    }

    /// Bytes of the decoded photos kept (whole and reduced).
    public var bytes: Int { kept.withLock { $0.bytes } }

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

    private func lookup(_ reference: PhotoReference, _ use: PhotoUse) -> LoadedPhoto? {
        kept.withLock { kept in
            guard let index = kept.list.firstIndex(where: { $0.reference == reference }),
                  let hit = kept.list[index].serving(use) else { return nil }
            kept.opened(reference)
            var entry = kept.list.remove(at: index)
            entry.lastUsed = .now
            kept.list.insert(entry, at: 0)
            return hit
        }
    }
}
