import DepthbookEffects
import DepthbookEngine
import DepthbookFrames
import Foundation

/// `depthbook loadtest`: real WebSocket sessions drag a slider against a running server, each previewing the
/// whole notebook the way the page does, and measure what a person sees: for each change, the time until the
/// last cell below the slider shows a full-quality frame answering it (or a newer change), how often that
/// cell's picture changes during the drag, and its longest gap; beside them, the time to the first frame of
/// the slider's own cell (the figure earlier versions reported).
public struct Loadtest: Sendable {
    public struct Options: Sendable {
        public var endpoint: Endpoint
        /// The WebSocket path (`/ws`).
        public var path = "/ws"
        /// Sent as the `Origin` header, as a browser on the studio page would (needed behind a proxy).
        public var origin: String?
        public var sessions: Int
        public var changes: Int
        public var rate: Double
        public var notebook = "depth-threshold"
        /// A photo file to upload once and open in every session; nil keeps the notebook's own photo.
        public var photo: String?
        public var width = 1280
        /// Like a page scrolled to the slider's cell with the result in view: the cells between them are out
        /// of view and named `offscreen` while the slider moves.
        public var scrolledToSlider = false
        public var timeoutSeconds = 60

        public init(endpoint: Endpoint, sessions: Int, changes: Int, rate: Double) {
            self.endpoint = endpoint
            self.sessions = sessions
            self.changes = changes
            self.rate = rate
        }
    }

    /// The one JSON line the command prints.
    public struct Report: Sendable, Encodable {
        public var sessions: Int
        public var changes: Int
        public var frames: Int
        public var p50_ms: Double
        public var p95_ms: Double
        public var max_ms: Double
        /// Changes that never got a frame of their own (superseded by a newer one before it rendered).
        public var dropped: Int
        public var errors: Int
        public var server_rss_mb: Double
        /// What the server said when it first refused a request or failed a render (nil when nothing failed).
        public var first_error: String?
        /// The last previewed cell that reads the slider's cell: what a person watches while dragging.
        public var final_cell: String = ""
        /// Per change: until that cell's full-quality frame answering it or a newer change.
        public var final_full_p50_ms: Double = 0
        public var final_full_p95_ms: Double = 0
        public var final_full_max_ms: Double = 0
        /// New pictures of that cell a second during the drag (coarse or full), averaged over sessions.
        public var final_updates_per_s: Double = 0
        /// The longest time that cell's picture stood still during the drag, over all sessions.
        public var final_max_gap_ms: Double = 0

        /// The report as one JSON line, keys in the order the issue lists them.
        public var jsonLine: String {
            func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
            return "{\"sessions\":\(sessions),\"changes\":\(changes),\"frames\":\(frames),\"p50_ms\":\(number(p50_ms)),"
                + "\"p95_ms\":\(number(p95_ms)),\"max_ms\":\(number(max_ms)),\"dropped\":\(dropped),\"errors\":\(errors),"
                + "\"server_rss_mb\":\(number(server_rss_mb)),\"first_error\":\(quoted(first_error)),"
                + "\"final_cell\":\(quoted(final_cell)),\"final_full_p50_ms\":\(number(final_full_p50_ms)),"
                + "\"final_full_p95_ms\":\(number(final_full_p95_ms)),\"final_full_max_ms\":\(number(final_full_max_ms)),"
                + "\"final_updates_per_s\":\(number(final_updates_per_s)),\"final_max_gap_ms\":\(number(final_max_gap_ms))}"
        }

        private func quoted(_ text: String?) -> String {
            guard let text, let data = try? JSONEncoder().encode(text) else { return "null" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run() throws -> Report {
        let photoReference = try options.photo.map { try upload($0) }
        let results = Locked<[SessionResult]>([])
        let group = DispatchGroup()
        for index in 0..<options.sessions {
            group.enter()
            let thread = Thread { [options] in
                let result = DragSession(options: options, index: index, upload: photoReference).run()
                results.withLock { $0.append(result) }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let all = results.withLock { $0 }
        let latencies = all.flatMap(\.latencies).sorted()
        func percentile(_ p: Double) -> Double { Self.percentile(latencies, p) }
        let finals = all.flatMap(\.finalLatencies).sorted()
        let rates = all.map(\.finalUpdatesPerSecond).filter { $0 > 0 }
        let rss = (try? serverStats()) ?? 0
        return Report(sessions: options.sessions, changes: options.changes * options.sessions,
                      frames: all.reduce(0) { $0 + $1.frames }, p50_ms: percentile(0.5), p95_ms: percentile(0.95),
                      max_ms: ((latencies.last ?? 0) * 10).rounded() / 10,
                      dropped: all.reduce(0) { $0 + $1.dropped }, errors: all.reduce(0) { $0 + $1.errors },
                      server_rss_mb: (rss * 10).rounded() / 10,
                      first_error: all.lazy.compactMap(\.firstError).first,
                      final_cell: all.first { !$0.finalCell.isEmpty }?.finalCell ?? "",
                      final_full_p50_ms: Self.percentile(finals, 0.5), final_full_p95_ms: Self.percentile(finals, 0.95),
                      final_full_max_ms: ((finals.last ?? 0) * 10).rounded() / 10,
                      final_updates_per_s: rates.isEmpty ? 0 : ((rates.reduce(0, +) / Double(rates.count)) * 10).rounded() / 10,
                      final_max_gap_ms: ((all.map(\.finalMaxGap).max() ?? 0) * 10).rounded() / 10)
    }

    /// The `p` quantile of sorted values, to a tenth of a millisecond.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count - 1)).rounded())
        return (sorted[rank] * 10).rounded() / 10
    }

    private func upload(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebSocketClient.Failure("cannot read \(path)")
        }
        let (status, body) = try SimpleHTTP.request(options.endpoint, method: "POST", path: "/api/upload", body: Array(data))
        guard status == 200, case .object(let reply) = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
              case .string(let id) = reply["upload"] else {
            throw WebSocketClient.Failure("the upload of \(path) failed (\(status)): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        return id
    }

    private func serverStats() throws -> Double {
        let (status, body) = try SimpleHTTP.request(options.endpoint, method: "GET", path: "/api/stats", timeoutSeconds: 10)
        guard status == 200, case .object(let stats) = try JSONDecoder().decode(JSONValue.self, from: Data(body)),
              case .number(let rss) = stats["rssMb"] else { return 0 }
        return rss
    }
}
