import Foundation
import Prometheus

/// The studio's Prometheus metrics, served at `GET /metrics`. One registry per process (as a scrape target is
/// one process); counters and histograms are recorded where the work happens, gauges are read at scrape time.
public final class StudioMetrics: Sendable {
    public static let shared = StudioMetrics()

    /// What a render was for: the label of `depthbook_render_seconds`.
    public enum RenderKind: String, CaseIterable, Sendable {
        case preview, coarse, crop, histogram, export
    }

    /// What the server holds at the moment of a scrape.
    public struct Snapshot: Sendable {
        public var sessions: Int
        public var queuedRenders: Int
        public var budgetBytesInUse: Int
        public var budgetBytes: Int
        /// The process's resident memory (what the kernel counts against a container's limit).
        public var residentBytes: Int
        /// Whether the notebook store answered its last request.
        public var storeUp: Bool = true
    }

    private let registry = PrometheusCollectorRegistry()
    private let renders: [RenderKind: ValueHistogram]
    private let superseded: Counter
    private let uploadErrors: Counter
    private let decodeErrors: Counter
    private let sessions: Gauge
    private let queueDepth: Gauge
    private let budgetInUse: Gauge
    private let budget: Gauge
    private let resident: Gauge
    private let storeUp: Gauge

    /// Seconds: from a few milliseconds (a cached preview) to a minute (a long export).
    static let renderBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    init() {
        // An empty unit is left out of the name (`depthbook_sessions`).
        func name(_ metric: String, _ help: String, unit: String = "") -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "depthbook", metricName: metric, unitName: unit, helpText: help)
        }
        let registry = self.registry
        let renderName = name("render", "Time to render one frame, histogram or export, by what it was for.", unit: "seconds")
        renders = Dictionary(uniqueKeysWithValues: RenderKind.allCases.map { kind in
            (kind, registry.makeValueHistogram(descriptor: renderName, labels: [("kind", kind.rawValue)], buckets: Self.renderBuckets))
        })
        superseded = registry.makeCounter(descriptor: name("frames_superseded", "Frames cancelled or dropped because a newer request replaced them.", unit: "total"))
        uploadErrors = registry.makeCounter(descriptor: name("upload_errors", "Uploads refused: too large, empty, not a photo, unreadable or not stored.", unit: "total"))
        decodeErrors = registry.makeCounter(descriptor: name("decode_errors", "Photos that could not be decoded, on upload or when a session opened them.", unit: "total"))
        sessions = registry.makeGauge(descriptor: name("sessions", "Sessions alive, connected or in their grace period."))
        queueDepth = registry.makeGauge(descriptor: name("render_queue_depth", "Render jobs waiting for a worker."))
        budgetInUse = registry.makeGauge(descriptor: name("memory_budget_in_use", "Bytes of the memory budget held by decoded photos and render caches.", unit: "bytes"))
        budget = registry.makeGauge(descriptor: name("memory_budget", "The memory budget the studio plans within.", unit: "bytes"))
        storeUp = registry.makeGauge(descriptor: name("store_up", "1 when the notebook store answered its last request, 0 while it is taken to be down."))
        resident = registry.makeGauge(descriptor: name("process_resident", "Resident memory of the server process (VmRSS).", unit: "bytes"))
    }

    public func recordRender(_ kind: RenderKind, took elapsed: Duration) {
        renders[kind]?.record(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    public func recordRender(_ kind: RenderKind, since start: ContinuousClock.Instant) {
        recordRender(kind, took: ContinuousClock.now - start)
    }

    public func frameSuperseded() { superseded.increment() }
    public func uploadRefused() { uploadErrors.increment() }
    public func decodeFailed() { decodeErrors.increment() }

    /// The exposition text (Prometheus text format 0.0.4) with the gauges set from `snapshot`.
    public func exposition(_ snapshot: Snapshot) -> [UInt8] {
        sessions.set(to: Double(snapshot.sessions))
        queueDepth.set(to: Double(snapshot.queuedRenders))
        budgetInUse.set(to: Double(snapshot.budgetBytesInUse))
        budget.set(to: Double(snapshot.budgetBytes))
        resident.set(to: Double(snapshot.residentBytes))
        storeUp.set(to: snapshot.storeUp ? 1 : 0)
        return registry.emitToBuffer()
    }
}

extension RenderJob {
    /// The `kind` label of this job's render time.
    var metricKind: StudioMetrics.RenderKind {
        if coarse { return .coarse }
        if !request.target.isPreview { return .crop }
        return .preview
    }
}
