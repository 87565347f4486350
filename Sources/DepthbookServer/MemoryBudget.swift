/// How the server's memory budget (`--memory-budget-mb`, default 1024) is shared out. Each part is enforced
/// where that memory lives: decoded photos (the photo cache, least recently used first, decoded again when
/// needed), rendered intermediates (one LRU across every photo's cache), kept frames and unsent messages
/// (per connection and session), and exports (one at a time per session, videos streamed frame by frame).
/// The rest is the working memory of the renders running at once, and of the person matte's network, which
/// runs on one of the render workers and borrows from the render caches what that worker's share lacks.
public struct MemoryBudget: Sendable, Equatable {
    public var totalBytes: Int

    public init(megabytes: Int = 1024) {
        totalBytes = megabytes << 20
    }

    /// Decoded photos kept between renders: a 12 MP HEIC is about 40–60 MB with its planes.
    public var photoBytes: Int { totalBytes * 30 / 100 }
    /// Rendered intermediates kept by every photo's cache together.
    public var cacheBytes: Int { totalBytes * 25 / 100 }
    /// The newest frame of each cell a session keeps to replay to a page that attaches.
    public var keptFramesBytesPerSession: Int { max(4 << 20, totalBytes / 128) }
    /// The person matte network's working memory while it runs: `depthbook inspect --person-matte` peaks
    /// 435–472 MB above `--no-person-matte` on the shared photos (VmHWM, /usr/bin/time), small or 12 MP alike:
    /// the network always sees a 512-px image.
    public static let personMatteBytes = 460 << 20
    /// The working memory each of `renderWorkers` renders running at once may use: what is left after the
    /// photos and the caches, shared evenly.
    public func workingBytesPerRender(renderWorkers: Int) -> Int {
        (totalBytes - photoBytes - cacheBytes) / max(1, renderWorkers)
    }
    /// What the render caches give up while the network runs on one of `renderWorkers` workers: its working
    /// memory less that worker's share (the others keep theirs, and more workers leave each a smaller one).
    public func personMatteRoomBytes(renderWorkers: Int) -> Int {
        min(cacheBytes, max(0, Self.personMatteBytes - workingBytesPerRender(renderWorkers: renderWorkers)))
    }
    /// Messages waiting for a slow client; past this the client is cut off.
    public var outboxBytesPerConnection: Int { max(8 << 20, totalBytes / 32) }
}
