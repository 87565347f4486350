import DepthbookCodecs
import DepthbookDocument
import DepthbookMessages
import Dispatch
import Foundation
import Logging
import Synchronization

/// `depthbook serve` as one value: builds the store, the sessions, the render pool and the transport from a
/// configuration, listens, and stops cleanly. Tests build it the same way with port 0.
public final class StudioServer: Sendable {
    public let configuration: ServerConfiguration
    public let studio: Studio
    /// The port actually bound (differs from the configuration when it asked for 0).
    public let port: Int
    private let transport: WebSocketTransport
    private let pool: RenderPool
    private let photos: PhotoCache
    private let janitor: DataJanitor
    private let store: any NotebookStore
    private let running = Atomic<Bool>(false)
    /// Notebook files that could not be read at start (reported, never fatal).
    public let notebookProblems: [String]

    public init(configuration: ServerConfiguration, backend: any StudioBackend, version: String) throws {
        self.configuration = configuration
        let data = configuration.dataDirectory
        let fm = FileManager.default
        try fm.createDirectory(atPath: data, withIntermediateDirectories: true)
        let exports = data + "/exports"
        try fm.createDirectory(atPath: exports, withIntermediateDirectories: true)
        try UploadSpool.prepare(directory: WebSocketTransport.spoolDirectory(configuration))
        // A server killed mid-export left its scratch video in the system's temporary folder.
        MP4Encoder.removeAbandonedScratchFiles()
        let location = configuration.store ?? .defaultLocation(dataDirectory: data)
        let store: any NotebookStore
        switch location {
        case .sqlite(let path): store = try SQLiteNotebookStore(path: path)
        case .postgres(let address): store = try PostgresNotebookStore(address, logger: Logger(label: "depthbook.store"))
        }
        self.store = store
        janitor = DataJanitor(exportsDirectory: exports, uploadsDirectory: data + "/uploads", policy: configuration.retention)
        // One store per folder: the backend's, when it reads uploads itself.
        let uploads = try backend.uploadStore ?? UploadStore(directory: data + "/uploads")
        let bundled = BundledNotebooks(directory: configuration.notebooksDirectory)
        notebookProblems = bundled.problems

        let pool = RenderPool(width: configuration.renderWorkers)
        self.pool = pool
        let improver = PhotoImprover(pool: pool) { backend.withPersonMatte($0) }
        let photos = PhotoCache(byteLimit: configuration.memoryBudget.photoBytes, improver: improver,
                                reduce: { backend.reducedForPreviews($0) },
                                carryPlanes: { backend.carryingPlanes(of: $0, to: $1) }) { try backend.loadPhoto($0) }
        self.photos = photos
        let hub = SessionHub(pool: pool, photos: photos, gracePeriod: configuration.sessionGrace,
                             keptFrameBytes: configuration.memoryBudget.keptFramesBytesPerSession)
        let studio = Studio(backend: backend, store: store, bundled: bundled, hub: hub, exportsDirectory: exports,
                            version: version, uploadLimitBytes: configuration.uploadLimitBytes)
        self.studio = studio
        let router = HTTPRouter(publicDirectory: configuration.publicDirectory, exportsDirectory: exports,
                                uploads: UploadHandler(store: uploads, backend: backend,
                                                       limitBytes: configuration.uploadLimitBytes,
                                                       decoded: { photos.offer($0) }),
                                stats: {
                                    ServerStats(rssMb: ProcessMemory.residentMegabytes() ?? 0,
                                                peakRssMb: Double(ProcessMemory.peakResidentBytes() ?? 0) / 1_048_576,
                                                sessions: hub.count,
                                                budgetMb: Double(configuration.memoryBudget.totalBytes >> 20),
                                                photosMb: Double(photos.bytes) / 1_048_576,
                                                cachesMb: Double(backend.cacheBytesHeld) / 1_048_576,
                                                unusedResidentMb: Double(ProcessMemory.unusedResidentBytes() ?? 0) / 1_048_576,
                                                cpuSeconds: ProcessCPU.seconds() ?? 0)
                                },
                                metrics: {
                                    StudioMetrics.shared.exposition(.init(
                                        sessions: hub.count, queuedRenders: pool.queuedCount,
                                        budgetBytesInUse: photos.bytes + backend.cacheBytesHeld,
                                        budgetBytes: configuration.memoryBudget.totalBytes,
                                        residentBytes: ProcessMemory.residentBytes() ?? 0,
                                        storeUp: store.isAvailable))
                                })
        transport = WebSocketTransport(
            configuration: configuration, maxMessageBytes: RequestDecoder.maxMessageBytes,
            handlers: .init(
                http: { router.respond(to: $0) },
                text: { studio.receive(text: $0, from: $1) },
                binary: { studio.receive(binary: $0, from: $1) },
                oversized: { studio.receiveOversized(bytes: $0, from: $1) },
                closed: { studio.disconnected($0) }))
        port = try transport.start()
    }

    /// The address to print: what a browser on this machine opens.
    public var url: String {
        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)/"
    }

    /// Starts serving on a background thread and returns at once.
    public func start() {
        transport.runInBackground()
        running.store(true, ordering: .releasing)
        scheduleSweep()
    }

    /// Every few seconds while the server runs: drops sessions whose grace period ran out, and gives memory
    /// back to the system once renders have stopped (they reuse warm heap while they run), or while they run
    /// when the resident memory nothing uses outgrows `unusedResidentAllowance`.
    private func scheduleSweep(trimmedAt: UInt64? = nil, round: Int = 0) {
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { [weak self] in
            guard let self, running.load(ordering: .acquiring) else { return }
            studio.hub.sweep()
            if round % Self.janitorRounds == 0 { cleanData() }
            var trimmed = trimmedAt
            let released = photos.releaseUnused(keeping: studio.hub.referencedPhotos(), idle: Self.unusedPhotoLifetime)
            if configuration.releasesMemoryWhenIdle {
                if let finished = pool.finishedWhenIdle, finished != trimmedAt || released > 0 {
                    ProcessMemory.releaseFreeMemory()
                    trimmed = finished
                } else if let unused = ProcessMemory.unusedResidentBytes(), unused > Self.unusedResidentAllowance {
                    ProcessMemory.releaseFreeMemory()
                }
            }
            scheduleSweep(trimmedAt: trimmed, round: round + 1)
        }
    }

    /// How much resident memory may sit unused while renders run: the process's own (code, stacks, about
    /// 60–100 MB) and freed heap kept warm. Beyond it the holes left between live blocks (buffers of different
    /// sizes for different photos and widths) only raise the resident size: a 10-minute soak crept from 770 to
    /// 867 MB with the heap never trimmed under load. One 12 MP float plane is 48 MB; what is left over keeps
    /// about two of them warm.
    static let unusedResidentAllowance = 192 << 20

    /// How long a photo no session shows stays decoded (with its render caches) for a visitor who comes back.
    static let unusedPhotoLifetime: Duration = .seconds(60)

    /// The data directory is cleaned at start and then every ten minutes (120 sweeps of 5 s).
    private static let janitorRounds = 120

    private func cleanData() {
        janitor.sweepExports()
        // Uploads in use are those of saved notebooks and live sessions; if the store cannot say, keep all.
        guard let saved = try? store.referencedUploads() else { return }
        janitor.sweepUploads(inUse: saved.union(studio.hub.referencedUploads()))
    }

    /// Stops serving: the socket closes, sessions end, the service thread finishes.
    public func stop() {
        running.store(false, ordering: .releasing)
        transport.stop()
        studio.hub.closeAll()
    }
}
