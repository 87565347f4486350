import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import Dispatch
@testable import DepthbookServer
import Foundation
import Synchronization

/// A backend without pixels for session tests: a "frame" is the text `cell:percentile`, and renders can be
/// held at a gate to make the in-flight/pending states happen on purpose.
final class FakeBackend: StudioBackend {
    let gate = Gate()

    func effectCatalog() -> JSONValue { .array([.object(["id": .string("depthThreshold")])]) }

    func samples() throws -> [SampleSummary] {
        [SampleSummary(id: "tiny", title: "Tiny", width: 4, height: 2, planes: ["photo.image"])]
    }

    func loadPhoto(_ reference: PhotoReference) throws -> LoadedPhoto {
        guard reference == .sample("tiny") else { throw ProtocolError.notFound("no such photo") }
        let photo = Photo(image: RGBImage8(width: 4, height: 2, channels: 3, repeating: 128))
        return LoadedPhoto(reference: reference, photo: photo, facts: PhotoFactsJSON.make(photo, source: reference),
                           renderer: FakeRenderer(gate: gate))
    }

    func inspectUpload(_ bytes: [UInt8], fileExtension: String, depthMap: [UInt8]?, polarity: DepthMapPolarity) throws -> Photo {
        throw ProtocolError.badRequest("fake backend reads no files")
    }

    func prepare(_ photo: Photo, as reference: PhotoReference) -> LoadedPhoto {
        LoadedPhoto(reference: reference, photo: photo, facts: PhotoFactsJSON.make(photo, source: reference),
                    renderer: FakeRenderer(gate: gate))
    }
}

/// Holds renders while closed: each waiting render needs a permit (`allowOne`) or the gate opened.
final class Gate: Sendable {
    private let closed = Locked(false)
    private let permits = DispatchSemaphore(value: 0)
    let started = Atomic<Int>(0)
    /// What each render that passed was asked for: the cell and the width, in order.
    let rendered = Locked<[(cell: String, width: Int)]>([])
    let entered = DispatchSemaphore(value: 0)

    /// Closes the gate; entries counted before now are forgotten, so `awaitEntry` waits for a render to come.
    func close() {
        closed.withLock { $0 = true }
        while entered.wait(timeout: .now()) == .success {}
    }

    /// Lets one held render through.
    func allowOne() { permits.signal() }

    /// Lets the held render through and every later one pass freely.
    func open() {
        closed.withLock { $0 = false }
        permits.signal()
    }

    func pass() {
        started.wrappingAdd(1, ordering: .relaxed)
        entered.signal()
        // Bounded, so a failed test cannot leave a render worker held for ever.
        if closed.withLock({ $0 }) { _ = permits.wait(timeout: .now() + 30) }
    }

    /// Waits (60 s at most) until a render has reached the gate; false if none did.
    func awaitEntry() -> Bool { entered.wait(timeout: .now() + 60) == .success }

    /// Waits (60 s at most) until `count` renders in all have passed the gate; false if fewer did.
    func awaitRendered(_ count: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while rendered.withLock({ $0.count }) < count {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}

final class FakeRenderer: PhotoRenderer {
    let gate: Gate
    init(gate: Gate) { self.gate = gate }

    func render(notebook: CheckedNotebook, cell: String, target: CellRenderRequest, isCancelled: @escaping @Sendable () -> Bool) throws -> RenderedFrame {
        gate.pass()
        gate.rendered.withLock { $0.append((cell, target.width)) }
        guard let found = notebook.notebook.cell(cell) else { throw ProtocolError.notFound("no cell \(cell)") }
        let percentile = found.params?["percentile"]?.number.map { String(Int($0)) } ?? "-"
        let width = target.region?.width ?? target.width
        return RenderedFrame(jpeg: Array("\(cell):\(percentile)".utf8), width: width, height: width / 2, cacheHits: 1, cacheMisses: 2)
    }

    func histogram(notebook: CheckedNotebook, reference: String, bins: Int, isCancelled: @escaping @Sendable () -> Bool) throws -> HistogramReply {
        HistogramReply(bins: Array(repeating: 1, count: bins), min: 0, max: 1, marker: nil, holes: 0)
    }

    func export(notebook: CheckedNotebook, export: StudioRequest.Export, progress: @escaping @Sendable (Double) -> Void,
                isCancelled: @escaping @Sendable () -> Bool) throws -> ExportedFile {
        progress(0.5)
        return ExportedFile(bytes: Array("export of \(export.cell)".utf8), fileExtension: export.format == .png ? "png" : "jpg")
    }
}

/// A connection whose outbox the test reads, waiting (with a generous deadline) for messages to arrive.
final class TestClient: Sendable {
    let connection: ClientConnection
    private let arrived = DispatchSemaphore(value: 0)
    private let nextID = Atomic<Int>(1)
    let studio: Studio

    init(studio: Studio, id: UInt64) {
        let arrived = self.arrived
        self.studio = studio
        connection = ClientConnection(id: id) { _ in arrived.signal() }
    }

    enum Message {
        case json([String: JSONValue])
        case frame(FrameHeader, String)
    }

    /// Sends a request and returns its id.
    @discardableResult
    func send(_ fields: [String: JSONValue]) -> Int {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        var object = fields
        object["id"] = .number(Double(id))
        let bytes = (try? Array(JSONEncoder().encode(JSONValue.object(object)))) ?? []
        studio.receive(text: bytes, from: connection)
        return id
    }

    /// The next message, or nil when nothing came within `seconds`.
    func next(within seconds: Double = 60) -> Message? {
        let deadline = DispatchTime.now() + seconds
        while true {
            if let message = connection.nextMessage() {
                switch message {
                case .text(let bytes):
                    if case .object(let o) = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) { return .json(o) }
                    return .json([:])
                case .binary(let bytes):
                    guard let (header, payload) = try? BinaryFrame.decode(bytes) else { return nil }
                    return .frame(header, String(decoding: payload, as: UTF8.self))
                }
            }
            if arrived.wait(timeout: deadline) == .timedOut { return nil }
        }
    }

    /// Sends and returns the reply (events and frames before it are skipped).
    func request(_ fields: [String: JSONValue]) -> [String: JSONValue]? {
        let id = send(fields)
        while let message = next() {
            if case .json(let o) = message, o["type"] == .string("reply"), o["id"] == .number(Double(id)) { return o }
        }
        return nil
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    var ok: Bool { self["ok"] == .bool(true) }
    var result: [String: JSONValue] { if case .object(let r) = self["result"] { return r } else { return [:] } }
    var errorCode: String? {
        if case .object(let e) = self["error"], case .string(let code) = e["code"] { return code }
        return nil
    }
}

enum StudioFixture {
    static let notebook = Notebook(name: "depth-threshold", title: "Depth threshold", photo: .sample("tiny"), cells: [
        Cell(id: "intro", kind: .note, text: "hi"),
        Cell(id: "photo", kind: .photo),
        Cell(id: "mask", kind: .step, effect: "depthThreshold", inputs: ["disparity": "photo.disparity"],
             params: ["percentile": .number(60)]),
        Cell(id: "result", kind: .step, effect: "blendWithMask", inputs: ["mask": "mask", "foreground": "photo"], params: [:]),
    ])

    static func studio(backend: FakeBackend = FakeBackend(), grace: Duration = .seconds(60)) throws -> Studio {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("exports-\(UUID().uuidString)").path
        return Studio(backend: backend, store: try SQLiteNotebookStore(),
                      bundled: try BundledNotebooks(notebooks: ["depth-threshold": notebook]),
                      hub: SessionHub(pool: RenderPool(width: 2), photos: PhotoCache(byteLimit: 1 << 30) { try backend.loadPhoto($0) },
                                      gracePeriod: grace),
                      exportsDirectory: exports, version: "test")
    }
}

/// Literals for JSON in tests only, so requests read like the protocol document.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
