
/// Settings and bookkeeping of one render: threads, the shared cache, cancellation, and what was reused.
public final class RenderContext: Sendable {
    /// Cores to use (row bands run on up to this many threads).
    public let threads: Int
    /// The cache shared between renders, or nil to compute everything.
    public let cache: RenderCache?
    /// Asked at every stage boundary; when it returns true the render stops with `RenderError.cancelled`.
    public let isCancelled: @Sendable () -> Bool
    private let counters = Locked((hits: 0, misses: 0))

    public init(threads: Int = RenderContext.defaultThreads, cache: RenderCache? = nil,
                isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.threads = max(1, threads)
        self.cache = cache
        self.isCancelled = isCancelled
    }

    /// How many nodes this render took from the cache, and how many it computed.
    public var cacheHits: Int { counters.withLock { $0.hits } }
    public var cacheMisses: Int { counters.withLock { $0.misses } }

    func countHit() { counters.withLock { $0.hits += 1 } }
    func countMiss() { counters.withLock { $0.misses += 1 } }

    /// Throws `RenderError.cancelled` when the render has been superseded.
    public func checkCancelled() throws {
        if isCancelled() { throw RenderError.cancelled }
    }

    /// The machine's active processor count.
    public static var defaultThreads: Int { activeProcessorCount() }
}

import class Foundation.ProcessInfo

private func activeProcessorCount() -> Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
