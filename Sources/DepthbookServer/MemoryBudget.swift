/// How the server's memory budget (`--memory-budget-mb`, default 1024) is shared out. Each part is enforced
/// where that memory lives: decoded photos (the photo cache, least recently used first, decoded again when
/// needed), rendered intermediates (one LRU across every photo's cache), kept frames and unsent messages
/// (per connection and session), and exports (one at a time per session, videos streamed frame by frame).
/// The rest is the working memory of the renders running at once, part of which the caches borrow while only
/// previews run, and of the person matte's network, which runs on one of the render workers and takes from the
/// render caches what the budget then lacks.
public struct MemoryBudget: Sendable, Equatable {
    public var totalBytes: Int

    public init(megabytes: Int = 1024) {
        totalBytes = megabytes << 20
    }

    /// Decoded photos kept between renders: a 12 MP HEIC is about 40–60 MB with its planes.
    public var photoBytes: Int { totalBytes * 30 / 100 }
    /// The working memory planned for each of `renderWorkers` renders running at once: 45 % shared evenly. A
    /// 12 MP export's frames take most of a share; a preview at a page's width takes a few MB of it.
    public func workingBytesPerRender(renderWorkers: Int) -> Int {
        totalBytes * 45 / 100 / max(1, renderWorkers)
    }
    /// Rendered intermediates kept by every photo's cache together: a third, a twelfth of the budget lent by the
    /// working memory, which previews leave unused (photos, caches and working memory add up to 108 %; the
    /// network takes the twelfth back, `personMatteRoomBytes`). At a quarter twenty editors, each on their own
    /// 12 MP photo, pinned about 15 MB each (the photo reduced to the page's widths, its fitted subject, its sorted
    /// disparity): more than the caches held, so every frame made them again (docs/server.md, stop 64).
    public var cacheBytes: Int { totalBytes / 3 }
    /// The newest frame of each cell a session keeps to replay to a page that attaches.
    public var keptFramesBytesPerSession: Int { max(4 << 20, totalBytes / 128) }
    /// The person matte network's working memory while it runs: `depthbook inspect --person-matte` peaks
    /// 435–472 MB above `--no-person-matte` on the shared photos (VmHWM, /usr/bin/time), small or 12 MP alike:
    /// the network always sees a 512-px image.
    public static let personMatteBytes = 460 << 20
    /// What the render caches give up while the network runs on one of `renderWorkers` workers: enough that the
    /// photos, the caches, the network and the other workers' shares fit the budget. With the default split and
    /// two workers the caches keep 26 MiB meanwhile, as they did before they borrowed from the working memory.
    public func personMatteRoomBytes(renderWorkers: Int) -> Int {
        let others = max(0, renderWorkers - 1) * workingBytesPerRender(renderWorkers: renderWorkers)
        let cachesMayKeep = max(0, totalBytes - photoBytes - Self.personMatteBytes - others)
        return max(0, cacheBytes - cachesMayKeep)
    }
    /// Messages waiting for a slow client; past this the client is cut off.
    public var outboxBytesPerConnection: Int { max(8 << 20, totalBytes / 32) }
}
