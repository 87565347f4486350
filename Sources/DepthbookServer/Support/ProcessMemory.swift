import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux), for `/api/stats` and the load test.
public enum ProcessMemory {
    /// Gives the heap's free pages back to the system (glibc's `malloc_trim`). The allocator is tuned never to
    /// trim by itself, so renders reuse warm buffers; the server calls this when it falls idle instead.
    /// Looked up by name: `<malloc.h>` is not in Swift's Glibc module. Without glibc it does nothing.
    public static func releaseFreeMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    public static func residentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }
        return kilobytes.map { $0 / 1024 }
    }
}

/// What `GET /api/stats` reports: enough for the load test to watch the server's memory.
public struct ServerStats: Sendable, Encodable {
    public var rssMb: Double
    public var sessions: Int
    /// The memory budget and what its caches hold now (decoded photos, rendered intermediates).
    public var budgetMb: Double = 0
    public var photosMb: Double = 0
    public var cachesMb: Double = 0
}
