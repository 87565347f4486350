import Foundation

/// Where the tests run. Under CI a missing photo or tool is a failure, never a quiet skip.
public enum RunEnvironment {
    /// `CI=true` (or any non-empty value but `false`/`0`), as CI runs `.ci/run`.
    public static var isCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased(), !value.isEmpty else { return false }
        return value != "false" && value != "0"
    }
}
