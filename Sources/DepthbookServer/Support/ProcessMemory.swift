#if canImport(CMalloc)
import CMalloc
#endif
import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux), for `/api/stats` and the load test.
public enum ProcessMemory {
    /// Gives the heap's free pages back to the system (glibc's `malloc_trim`). The allocator is tuned never to
    /// trim by itself, so renders reuse warm buffers; the server calls this when it falls idle, and under load
    /// when `unusedResidentBytes` grows past `StudioServer.unusedResidentAllowance`. Without glibc it does nothing.
    public static func releaseFreeMemory() {
        #if canImport(CMalloc)
        _ = malloc_trim(0)
        #endif
    }

    /// Resident bytes no live allocation holds (`VmRSS` less glibc's `mallinfo2` in-use and mmapped bytes): freed
    /// heap pages still mapped (kept warm for the next render, and the holes between live blocks that make the
    /// heap's high-water creep up under load), plus what is not heap at all (code, stacks: 60–100 MB here).
    /// `fordblks`, the heap's free bytes, cannot say this: it still counts pages `malloc_trim` gave back.
    /// Nil without glibc or `/proc`.
    public static func unusedResidentBytes() -> Int? {
        #if canImport(CMalloc)
        guard let resident = residentBytes() else { return nil }
        let info = mallinfo2()
        return max(0, resident - Int(info.uordblks) - Int(info.hblkhd))
        #else
        return nil
        #endif
    }

    /// Resident bytes now (`VmRSS`), or nil where there is no `/proc`.
    public static func residentBytes() -> Int? { statusKilobytes("VmRSS").map { $0 << 10 } }

    /// The most resident bytes so far (`VmHWM`), or nil where there is no `/proc`.
    public static func peakResidentBytes() -> Int? { statusKilobytes("VmHWM").map { $0 << 10 } }

    public static func residentMegabytes() -> Double? { residentBytes().map { Double($0) / 1_048_576 } }

    /// A `kB` field of `/proc/self/status`. The file reports a size of 0, so it is read to its end (Foundation's
    /// `String(contentsOfFile:)` trusts the size and read nothing: `/api/stats` said 0 MB).
    private static func statusKilobytes(_ field: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        let prefix = field + ":"
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix(prefix) })
        else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }
}

/// What `GET /api/stats` reports: enough for the load test to watch the server's memory.
public struct ServerStats: Sendable, Encodable {
    public var rssMb: Double
    /// The most resident memory the process has had since it started.
    public var peakRssMb: Double = 0
    public var sessions: Int
    /// The memory budget and what its caches hold now (decoded photos, rendered intermediates).
    public var budgetMb: Double = 0
    public var photosMb: Double = 0
    public var cachesMb: Double = 0
    /// Resident memory no live allocation holds (see `ProcessMemory.unusedResidentBytes`).
    public var unusedResidentMb: Double = 0
    /// CPU seconds the process has used (`ProcessCPU`): two readings give the cores spent between them.
    public var cpuSeconds: Double = 0
}
