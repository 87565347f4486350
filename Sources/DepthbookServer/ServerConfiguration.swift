import DepthbookProtocol

/// Everything `depthbook serve` can be told, resolved from flags, then environment, then defaults.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 asks the system for a free port; the server reports the one it got.
    public var port: Int = 8080
    public var dataDirectory: String = "data"
    public var publicDirectory: String = "Public"
    public var notebooksDirectory: String = "Notebooks"
    /// Where saved notebooks live; nil: `notebooks.sqlite` in the data directory.
    public var store: StoreLocation?
    /// Origins allowed to open the WebSocket besides the served host itself (e.g. "https://studio.example.org").
    public var allowedOrigins: [String] = []
    /// Host names the studio answers to besides the loopback names and `host` (e.g. "studio.example.org").
    public var allowedHosts: [String] = []
    /// When set, uploads, edits, saves and exports need this token; anyone may still open saved links read-only.
    public var token: String?
    /// Uploads larger than this are refused with 413 (nginx in deploy/ uses the same 64 MiB); `hello` tells pages.
    public var uploadLimitBytes: Int = Limits.studio.maxUploadBytes
    /// Renders running at once over all sessions.
    public var renderWorkers: Int = 2
    /// How long a session waits for its page to reconnect.
    public var sessionGrace: Duration = .seconds(120)
    /// The memory the studio plans to use, shared out by `MemoryBudget`.
    public var memoryBudget = MemoryBudget()
    /// Whether the heap's free pages go back to the system once renders stop (`ProcessMemory.releaseFreeMemory`).
    public var releasesMemoryWhenIdle = true
    /// When exports and unused uploads are cleaned away.
    public var retention = DataJanitor.Policy()

    public init() {}

    /// Who may talk to the studio, as these settings say.
    public var accessPolicy: AccessPolicy {
        AccessPolicy(listenHost: host, extraHosts: allowedHosts, allowedOrigins: allowedOrigins, token: token)
    }
}
