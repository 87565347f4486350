/// How the server's memory budget (`--memory-budget-mb`, default 1024) is shared out. Each part is enforced
/// where that memory lives: decoded photos (the photo cache, least recently used first, decoded again when
/// needed), rendered intermediates (one LRU across every photo's cache), kept frames and unsent messages
/// (per connection and session), and exports (one at a time per session, videos streamed frame by frame).
/// The rest is the working memory of the renders running at once.
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
    /// Messages waiting for a slow client; past this the client is cut off.
    public var outboxBytesPerConnection: Int { max(8 << 20, totalBytes / 32) }
}
