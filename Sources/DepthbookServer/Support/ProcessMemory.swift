import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux), for `/api/stats` and the load test.
public enum ProcessMemory {
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
}
