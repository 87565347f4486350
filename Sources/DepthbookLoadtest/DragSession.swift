import DepthbookDocument
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
import DepthbookSync
import Foundation
import Synchronization

struct SessionResult: Sendable {
    var latencies: [Double] = []
    var frames = 0
    var dropped = 0
    var errors = 0
    var firstError: String?
    var finalCell = ""
    var finalLatencies: [Double] = []
    /// From the drag's last change (the slider let go) until the watched cell's full frame answering it; nil when
    /// none came.
    var settleMs: Double?
    var finalUpdatesPerSecond: Double = 0
    var finalMaxGap: Double = 0
    /// The server's own render time of each frame of the watched cell during the drag, coarse and full apart
    /// (where the time goes: a render that slow is work, a latency much longer than it is waiting).
    var coarseRenderMs: [Double] = []
    var fullRenderMs: [Double] = []
    /// From opening the photo until the planes the server was still making for it had come (0: none were coming).
    var readyMs: Double = 0
}

/// One simulated page: opens the notebook, previews the slider's cell, then moves the slider at the rate.
struct DragSession {
    let options: Loadtest.Options
    let index: Int
    let upload: String?
    /// Set for the session an audience watches (`--watchers`): it says who it is, waits for them, and tells
    /// them when each change went out.
    var presenting: Presenting? = nil
    /// Where every editor waits, warm, until all are: the drags run at the same time.
    var startLine: StartLine? = nil

    final class Shared: Sendable {
        let sentAt = Locked<[Int: ContinuousClock.Instant]>([:])
        let answered = Locked<Set<Int>>([])
        let latencies = Locked<[Double]>([])
        let frames = Atomic<Int>(0)
        let errors = Atomic<Int>(0)
        let replies = Locked<[Int: JSONValue]>([:])
        let cell = Locked("")
        let firstError = Locked<String?>(nil)
        /// The cell a person watches, and every frame of it: (seq, coarse, when, the server's render time).
        let finalCell = Locked("")
        let finalFrames = Locked<[(seq: Int, coarse: Bool, at: ContinuousClock.Instant, renderMs: Double)]>([])
        /// Cells that have shown a full frame of the warm-up previews.
        let warmed = Locked<Set<String>>([])
        /// Set when the server said the photo has every plane it was making (a `photo` event without `coming`).
        let photoSettled = Atomic<Bool>(false)
        /// Set when the slider's cell showed a full frame: the page then asks for its histogram.
        let histogramWanted = Atomic<Bool>(false)

        func fail(_ message: String) {
            errors.wrappingAdd(1, ordering: .relaxed)
            firstError.withLock { if $0 == nil { $0 = message } }
        }
    }

    func run() -> SessionResult {
        var result = SessionResult()
        let client: WebSocketClient
        do {
            client = try WebSocketClient(endpoint: options.endpoint, path: options.path, origin: options.origin,
                                         timeoutSeconds: options.timeoutSeconds)
        } catch {
            result.errors = 1
            result.dropped = options.changes
            return result
        }
        defer { client.shutdown() }
        let shared = Shared()
        let reader = Thread {
            while let message = try? client.receive() {
                Self.handle(message, shared: shared)
            }
        }
        var nextID = 0
        var atStart = false
        /// Sends `request` and waits for its reply's result, read as the studio's own type for it.
        func request<Result: Decodable>(_ request: StudioRequest, _ type: Result.Type) throws -> Result {
            nextID += 1
            let name = request.type
            try client.send(text: try request.message(id: nextID))
            let id = nextID
            let deadline = ContinuousClock.now + .seconds(options.timeoutSeconds)
            while ContinuousClock.now < deadline {
                if let reply = shared.replies.withLock({ $0.removeValue(forKey: id) }) {
                    do {
                        return try StudioResult.decode(Result.self, fromReply: reply)
                    } catch {
                        throw WebSocketClient.Failure("\(name) failed: \(error)")
                    }
                }
                Thread.sleep(forTimeInterval: 0.001)
            }
            throw WebSocketClient.Failure("no reply to \(name)")
        }
        do {
            reader.start()
            let hello = try request(.hello(.init()), HelloResult.self)
            let opened = try request(.openNotebook(.init(name: options.notebook)), OpenNotebookResult.self)
            if let upload {
                let openedAt = ContinuousClock.now
                let photo = try request(.openPhoto(.init(photo: .upload(upload))), PhotoResult.self)
                // A person sees the learned matte come a second or so after the photo, then works: the drag is
                // measured on the photo as it then is, not while the network runs and the caches start over.
                if case .object(let facts) = photo.photo, facts["coming"] != nil {
                    try Self.waitForSettledPhoto(shared: shared, timeout: options.timeoutSeconds)
                    result.readyMs = Self.milliseconds(ContinuousClock.now - openedAt)
                }
            }
            let (notebook, graph) = (opened.notebook, opened.graph)
            let cell = try Self.sliderCell(in: notebook)
            shared.cell.withLock { $0 = cell }
            // Every cell with a picture is previewed, as the page shows them all; the last one reading the
            // slider's cell (by the server's graph) is what a person watches.
            let previewed = notebook.cells.map(\.id).filter { graph.cells[$0]?.renders == true }
            let watched = graph.dependents(of: cell).last ?? cell
            let between = graph.dependents(of: cell).dropLast()
            shared.finalCell.withLock { $0 = watched }
            result.finalCell = watched
            if let presenting {
                presenting.finalCell.withLock { $0 = watched }
                presenting.sessionID.withLock { $0 = hello.session }
            }
            var seq = 1
            shared.sentAt.withLock { $0[seq] = .now }
            for other in previewed where other != cell {
                _ = try request(.preview(.init(cell: other, width: options.width, seq: seq)), CellSeqResult.self)
            }
            _ = try request(.preview(.init(cell: cell, width: options.width, seq: seq)), CellSeqResult.self)
            try Self.waitFor(seq: seq, shared: shared, timeout: options.timeoutSeconds)
            let warmDeadline = ContinuousClock.now + .seconds(options.timeoutSeconds)
            while !shared.warmed.withLock({ $0.contains(watched) }), ContinuousClock.now < warmDeadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            startLine?.arrive(timeout: options.timeoutSeconds)
            atStart = true
            shared.finalFrames.withLock { $0.removeAll() }
            // The warm-up preview is not measured.
            shared.latencies.withLock { $0.removeAll() }
            shared.frames.store(0, ordering: .relaxed)
            if let presenting {
                // The audience is seated before the talk starts.
                let seated = ContinuousClock.now + .seconds(options.timeoutSeconds)
                while presenting.attached.load(ordering: .relaxed) < options.watchers, ContinuousClock.now < seated {
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }

            let interval = Duration.seconds(1 / max(0.1, options.rate))
            var tick = ContinuousClock.now
            var firstChangeSeq = 0
            for change in 0..<options.changes {
                seq += 1
                if change == 0 { firstChangeSeq = seq }
                // The slider sweeps 10...90 and back, as a hand dragging it would. Each session starts at its own
                // point and is offset by a fraction, so no two sessions ask for the same value: nothing is
                // answered from another session's cached render.
                let phase = Double((change + index * 7) % 80) / 40
                let percentile = 10 + 80 * (phase <= 1 ? phase : 2 - phase) + Double(index % 50) * 0.0137
                let last = change == options.changes - 1
                nextID += 1
                let change = StudioRequest.setParams(.init(
                    cell: cell, params: ["percentile": .number(percentile)], seq: seq, interactive: !last,
                    offscreen: options.scrolledToSlider ? Array(between) : nil))
                let now = ContinuousClock.now
                shared.sentAt.withLock { $0[seq] = now }
                presenting?.sentAt.withLock { $0[seq] = now }
                try client.send(text: try change.message(id: nextID))
                if shared.histogramWanted.exchange(false, ordering: .relaxed) {
                    nextID += 1
                    try client.send(text: try StudioRequest.histogram(.init(cell: cell, bins: hello.limits.defaultHistogramBins)).message(id: nextID))
                }
                tick += interval
                if !last, tick > .now { Thread.sleep(until: tick) }
            }
            let lastSent = ContinuousClock.now
            presenting?.ended.withLock { $0 = (firstChangeSeq, seq, lastSent) }
            try Self.waitFor(seq: seq, shared: shared, timeout: options.timeoutSeconds, full: true)
            try Self.waitForFinal(seq: seq, shared: shared, timeout: options.timeoutSeconds)
            Self.summariseFinal(shared: shared, from: firstChangeSeq, to: seq, until: lastSent, into: &result)
            let answered = shared.answered.withLock { $0 }
            result.dropped = (firstChangeSeq...seq).filter { !answered.contains($0) }.count
        } catch {
            if !atStart { startLine?.withdraw() }
            presenting?.failed.store(true, ordering: .relaxed)
            result.errors += 1
            shared.firstError.withLock { if $0 == nil { $0 = String(describing: error) } }
            if result.dropped == 0 { result.dropped = options.changes - shared.answered.withLock { $0.filter { $0 > 1 }.count } }
        }
        result.latencies = shared.latencies.withLock { $0 }
        result.frames = shared.frames.load(ordering: .relaxed)
        result.errors += shared.errors.load(ordering: .relaxed)
        result.firstError = shared.firstError.withLock { $0 }
        return result
    }

    static func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

    /// Waits for the `photo` event that says the planes being made for the open photo have come.
    static func waitForSettledPhoto(shared: Shared, timeout: Int) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if shared.photoSettled.load(ordering: .relaxed) { return }
            Thread.sleep(forTimeInterval: 0.005)
        }
        throw WebSocketClient.Failure("the photo's coming planes did not come within \(timeout) s")
    }

    /// Waits until the watched cell shows the full frame answering the last change.
    static func waitForFinal(seq: Int, shared: Shared, timeout: Int) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let error = shared.firstError.withLock({ $0 }) { throw WebSocketClient.Failure(error) }
            if shared.finalFrames.withLock({ $0.contains { !$0.coarse && $0.seq >= seq } }) { return }
            Thread.sleep(forTimeInterval: 0.002)
        }
        throw WebSocketClient.Failure("no full frame of the watched cell for seq \(seq) within \(timeout) s")
    }

    /// Per change, the wait for the watched cell's full frame answering it or a newer one; and during the drag,
    /// how often that cell's picture changed and its longest standstill.
    static func summariseFinal(shared: Shared, from first: Int, to last: Int, until dragEnd: ContinuousClock.Instant,
                               into result: inout SessionResult) {
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        let frames = shared.finalFrames.withLock { $0 }
        let sent = shared.sentAt.withLock { $0 }
        for seq in first...last {
            guard let at = sent[seq], let answer = frames.first(where: { !$0.coarse && $0.seq >= seq && $0.at >= at }) else { continue }
            result.finalLatencies.append(ms(answer.at - at))
            if seq == last { result.settleMs = ms(answer.at - at) }
        }
        guard let dragStart = sent[first] else { return }
        let renders = frames.filter { $0.at >= dragStart }
        result.coarseRenderMs = renders.filter(\.coarse).map(\.renderMs)
        result.fullRenderMs = renders.filter { !$0.coarse }.map(\.renderMs)
        let during = frames.filter { $0.at >= dragStart && $0.at <= dragEnd }.map(\.at)
        let span = ms(dragEnd - dragStart)
        if span > 0 { result.finalUpdatesPerSecond = Double(during.count) / (span / 1000) }
        let marks = [dragStart] + during + [dragEnd]
        result.finalMaxGap = zip(marks, marks.dropFirst()).map { ms($1 - $0) }.max() ?? 0
    }

    /// The depth-threshold notebook's mask (the first threshold step, or a step that sets `percentile`), else
    /// the first step.
    static func sliderCell(in notebook: Notebook) throws -> String {
        let steps = notebook.cells.filter { $0.kind == .step }
        let threshold = steps.first { $0.effect == "threshold" || $0.params?["percentile"] != nil }
        guard let cell = threshold ?? steps.first else { throw WebSocketClient.Failure("the notebook has no step cell to drag") }
        return cell.id
    }

    static func handle(_ message: WebSocketClient.Message, shared: Shared) {
        switch message {
        case .binary(let bytes):
            guard let (header, _) = try? BinaryFrame.decode(bytes) else { return }
            let now = ContinuousClock.now
            if !header.coarse { shared.warmed.withLock { _ = $0.insert(header.cell) } }
            if header.cell == shared.finalCell.withLock({ $0 }) {
                shared.finalFrames.withLock { $0.append((header.seq, header.coarse, now, header.renderMs)) }
            }
            guard header.cell == shared.cell.withLock({ $0 }) else { return }
            if !header.coarse { shared.histogramWanted.store(true, ordering: .relaxed) }
            shared.frames.wrappingAdd(1, ordering: .relaxed)
            let first = shared.answered.withLock { $0.insert(header.seq).inserted }
            if first, let sent = shared.sentAt.withLock({ $0[header.seq] }) {
                let elapsed = now - sent
                let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                shared.latencies.withLock { $0.append(ms) }
            }
            // Full frames are also noted as -seq, so the end of the drag can wait for the final full preview.
            if !header.coarse { shared.answered.withLock { _ = $0.insert(-header.seq) } }
        case .text(let text):
            guard case .object(let object) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                shared.fail("a text message that is not JSON")
                return
            }
            if object["type"] == .string("reply") {
                if object["ok"] != .bool(true) { shared.fail(Self.errorMessage(object)) }
                if case .number(let id) = object["id"] { shared.replies.withLock { $0[Int(id)] = .object(object) } }
            } else {
                switch StudioEvent.decode(text) {
                case .cellError(let failure)?:
                    shared.fail(failure.message)
                case .photo(let change)?:
                    if case .object(let facts) = change.photo, facts["coming"] == nil { shared.photoSettled.store(true, ordering: .relaxed) }
                default:
                    break
                }
            }
        }
    }

    static func errorMessage(_ object: [String: JSONValue]) -> String {
        if case .object(let error) = object["error"], case .string(let message) = error["message"] { return message }
        if case .string(let message) = object["message"] { return message }
        return "an error without a message"
    }

    /// Waits for a frame answering `seq` (with `full`, its full-size frame); gives up at once when the server
    /// refused a request or failed a render, since the frame will then never come.
    static func waitFor(seq: Int, shared: Shared, timeout: Int, full: Bool = false) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let error = shared.firstError.withLock({ $0 }) { throw WebSocketClient.Failure(error) }
            let done = shared.answered.withLock { full ? $0.contains(-seq) : $0.contains(seq) }
            if done { return }
            Thread.sleep(forTimeInterval: 0.002)
        }
        throw WebSocketClient.Failure("no frame for seq \(seq) within \(timeout) s")
    }
}

extension Thread {
    static func sleep(until instant: ContinuousClock.Instant) {
        let remaining = instant - .now
        guard remaining > .zero else { return }
        let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
        Thread.sleep(forTimeInterval: seconds)
    }
}
