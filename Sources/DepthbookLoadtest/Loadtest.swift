import DepthbookDocument
import DepthbookFrames
import DepthbookSync
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
        /// Photo files uploaded once each; session i opens photo i modulo their count (a workshop where each
        /// person brought a photo). Takes the place of `photo` when not empty.
        public var photos: [String] = []
        /// Pages following session 0 view-only (an audience following a presenter).
        public var watchers = 0
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
        /// Per session, from the drag's last change (the slider let go) until that cell's full frame answering it:
        /// what a person waits for once the hand stops.
        public var settle_p50_ms: Double = 0
        public var settle_p95_ms: Double = 0
        public var settle_max_ms: Double = 0
        /// New pictures of that cell a second during the drag (coarse or full), averaged over sessions.
        public var final_updates_per_s: Double = 0
        /// The longest time that cell's picture stood still during the drag, over all sessions.
        public var final_max_gap_ms: Double = 0
        /// Distinct photos the sessions were on (1 for the notebook's own or `--photo`).
        public var photos: Int = 1
        /// The longest wait, from opening a photo, for the planes the server was still making for it (the learned
        /// person matte): sessions drag once it came, all together (0: nothing was coming).
        public var photos_ready_max_ms: Double = 0
        /// The worst session's own figures: its final-frame p95 and its updates a second.
        public var slowest_final_full_p95_ms: Double = 0
        public var slowest_final_updates_per_s: Double = 0
        /// The server's render time (its `renderMs`) of the watched cell's frames from the drag's start, coarse
        /// and full apart, p50 over every session: the work one picture costs under this load.
        public var final_coarse_render_p50_ms: Double = 0
        public var final_full_render_p50_ms: Double = 0
        /// Cores the server spent from the first session's start to the last one's end (its CPU seconds over
        /// the wall time, read from `/api/stats`); 0 when the server does not say.
        public var server_cpu_cores: Double = 0
        /// With `--watchers`: how many followed, and per change of the presenter (session 0), the time until its
        /// watched cell's full frame reached each watcher (pooled), the slowest watcher's p95, and their updates
        /// a second (mean). Watchers that saw nothing count as errors.
        public var watchers: Int = 0
        public var watcher_final_full_p50_ms: Double = 0
        public var watcher_final_full_p95_ms: Double = 0
        public var slowest_watcher_final_full_p95_ms: Double = 0
        public var watcher_updates_per_s: Double = 0

        /// The report as one JSON line (keys sorted; `first_error` left out when nothing failed): readers parse
        /// it, so its key order is no contract.
        public var jsonLine: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(self) else { return "{}" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run() throws -> Report {
        let uploads = try (options.photos.isEmpty ? options.photo.map { [$0] } ?? [] : options.photos).map { try upload($0) }
        let results = Locked<[SessionResult]>([])
        let group = DispatchGroup()
        let before = try? serverStats(), started = ContinuousClock.now
        let presenting = options.watchers > 0 ? Presenting() : nil
        let startLine = StartLine(count: options.sessions)
        for index in 0..<options.sessions {
            group.enter()
            let photo = uploads.isEmpty ? nil : uploads[index % uploads.count]
            let thread = Thread { [options] in
                let result = DragSession(options: options, index: index, upload: photo,
                                         presenting: index == 0 ? presenting : nil, startLine: startLine).run()
                results.withLock { $0.append(result) }
                group.leave()
            }
            thread.start()
        }
        let watched = Locked<[WatcherResult]>([])
        if let presenting {
            for _ in 0..<options.watchers {
                group.enter()
                Thread { [options] in
                    let result = Watcher(options: options, presenting: presenting).run()
                    watched.withLock { $0.append(result) }
                    group.leave()
                }.start()
            }
        }
        group.wait()
        let wall = ContinuousClock.now - started
        let all = results.withLock { $0 }
        let latencies = all.flatMap(\.latencies).sorted()
        func percentile(_ p: Double) -> Double { Self.percentile(latencies, p) }
        let finals = all.flatMap(\.finalLatencies).sorted()
        let rates = all.map(\.finalUpdatesPerSecond).filter { $0 > 0 }
        let after = try? serverStats()
        let rss = after?.rss ?? 0
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let cores = before.flatMap { b in after.map { ($0.cpu - b.cpu) / max(seconds, 0.001) } } ?? 0
        let perSession = all.filter { !$0.finalLatencies.isEmpty }
        var report = Report(sessions: options.sessions, changes: options.changes * options.sessions,
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
        let settles = all.compactMap(\.settleMs).sorted()
        report.settle_p50_ms = Self.percentile(settles, 0.5)
        report.settle_p95_ms = Self.percentile(settles, 0.95)
        report.settle_max_ms = ((settles.last ?? 0) * 10).rounded() / 10
        report.photos = max(1, uploads.count)
        report.photos_ready_max_ms = ((all.map(\.readyMs).max() ?? 0) * 10).rounded() / 10
        report.slowest_final_full_p95_ms = perSession.map { Self.percentile($0.finalLatencies.sorted(), 0.95) }.max() ?? 0
        report.slowest_final_updates_per_s = ((perSession.map(\.finalUpdatesPerSecond).min() ?? 0) * 10).rounded() / 10
        report.server_cpu_cores = (cores * 100).rounded() / 100
        report.final_coarse_render_p50_ms = Self.percentile(all.flatMap(\.coarseRenderMs).sorted(), 0.5)
        report.final_full_render_p50_ms = Self.percentile(all.flatMap(\.fullRenderMs).sorted(), 0.5)
        let audience = watched.withLock { $0 }
        if !audience.isEmpty {
            let pooled = audience.flatMap(\.finalLatencies).sorted()
            report.watchers = audience.count
            report.watcher_final_full_p50_ms = Self.percentile(pooled, 0.5)
            report.watcher_final_full_p95_ms = Self.percentile(pooled, 0.95)
            report.slowest_watcher_final_full_p95_ms = audience.map { Self.percentile($0.finalLatencies.sorted(), 0.95) }.max() ?? 0
            report.watcher_updates_per_s = ((audience.map(\.updatesPerSecond).reduce(0, +) / Double(audience.count)) * 10).rounded() / 10
            let failures = audience.compactMap(\.error)
            report.errors += failures.count
            if report.first_error == nil { report.first_error = failures.first.map { "a watcher: \($0)" } }
        }
        return report
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

    /// The server's resident MB and CPU seconds so far (0 for what it does not report).
    private func serverStats() throws -> (rss: Double, cpu: Double) {
        let (status, body) = try SimpleHTTP.request(options.endpoint, method: "GET", path: "/api/stats", timeoutSeconds: 10)
        guard status == 200, case .object(let stats) = try JSONDecoder().decode(JSONValue.self, from: Data(body)) else { return (0, 0) }
        func number(_ key: String) -> Double { if case .number(let value) = stats[key] { return value } else { return 0 } }
        return (number("rssMb"), number("cpuSeconds"))
    }
}
