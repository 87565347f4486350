import Foundation

/// The CPU time this process has used, from `/proc/self/stat` (Linux), so a load test can say how many cores the
/// server spent while it ran (CPU seconds over wall seconds), which latency alone does not show.
public enum ProcessCPU {
    /// User plus system seconds so far, or nil where there is no `/proc`.
    public static func seconds() -> Double? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/stat") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return parse(String(decoding: data, as: UTF8.self), ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Fields 14 and 15 (`utime`, `stime`, in clock ticks) of a `stat` line. The command name (field 2) is in
    /// parentheses and may hold spaces, so fields are counted from its closing parenthesis.
    static func parse(_ line: String, ticksPerSecond: Double) -> Double? {
        guard let close = line.lastIndex(of: ")"), ticksPerSecond > 0 else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        // After ")": field 3 (state) is fields[0], so field n is fields[n - 3].
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }
}
