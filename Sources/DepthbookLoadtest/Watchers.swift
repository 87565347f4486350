import DepthbookDocument
import DepthbookFrames
import DepthbookMessages
import DepthbookSync
import Foundation
import Synchronization

/// What the presenting session (session 0) tells its audience's measurement: its session id once it has said
/// hello, the cell a person watches, when each change was sent, and when the drag ended.
final class Presenting: Sendable {
    let sessionID = Locked<String?>(nil)
    let finalCell = Locked("")
    let sentAt = Locked<[Int: ContinuousClock.Instant]>([:])
    /// The drag's first and last change, and when the last was sent: set once it has ended.
    let ended = Locked<(first: Int, last: Int, at: ContinuousClock.Instant)?>(nil)
    /// Watchers attached so far: the drag starts once all are (or after the time-out).
    let attached = Atomic<Int>(0)
    /// The presenter could not start: watchers stop waiting for it.
    let failed = Atomic<Bool>(false)
}

/// What one watcher saw.
struct WatcherResult: Sendable {
    var finalLatencies: [Double] = []
    var updatesPerSecond: Double = 0
    var error: String?
}

/// `--watchers N`: an audience following the presenter view-only (`hello` with `watch`), as phones follow a
/// talk's stage. Each watcher only receives: for every change the presenter made, the time until the watched
/// cell's full frame answering it (or a newer one) reached that watcher, and how often its picture changed.
struct Watcher {
    let options: Loadtest.Options
    let presenting: Presenting

    /// The fields of a server message a watcher reads.
    private struct Envelope: Decodable {
        let type: String?
        let ok: Bool?
    }

    func run() -> WatcherResult {
        var result = WatcherResult()
        let deadline = ContinuousClock.now + .seconds(options.timeoutSeconds)
        var id: String?
        while id == nil, ContinuousClock.now < deadline, !presenting.failed.load(ordering: .relaxed) {
            id = presenting.sessionID.withLock { $0 }
            if id == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let id else {
            result.error = "the presenter's session never started"
            return result
        }
        let frames = Locked<[(seq: Int, coarse: Bool, at: ContinuousClock.Instant)]>([])
        let helloed = Atomic<Bool>(false)
        let failure = Locked<String?>(nil)
        do {
            let client = try WebSocketClient(endpoint: options.endpoint, path: options.path, origin: options.origin,
                                             timeoutSeconds: options.timeoutSeconds)
            defer { client.shutdown() }
            let watched = presenting.finalCell.withLock { $0 }
            let reader = Thread {
                while let message = try? client.receive() {
                    switch message {
                    case .binary(let bytes):
                        guard let (header, _) = try? BinaryFrame.decode(bytes), header.cell == watched else { continue }
                        frames.withLock { $0.append((header.seq, header.coarse, .now)) }
                    case .text(let text):
                        // Only replies matter here, and a watcher hears every change's notebook: reading each
                        // into a JSONValue took 80 % of the load test's CPU with 100 watchers, and scanning each
                        // as JSON still 17 %; the test measured itself instead of the server.
                        guard text.contains("\"reply\""),
                              let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)),
                              envelope.type == "reply" else { continue }
                        if envelope.ok == true { helloed.store(true, ordering: .relaxed); continue }
                        guard case .object(let object) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { continue }
                        failure.withLock { $0 = DragSession.errorMessage(object) }
                    }
                }
            }
            reader.start()
            try client.send(text: try StudioRequest.hello(.init(watch: id)).message(id: 1))
            while !helloed.load(ordering: .relaxed), failure.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            if let message = failure.withLock({ $0 }) { throw WebSocketClient.Failure(message) }
            guard helloed.load(ordering: .relaxed) else { throw WebSocketClient.Failure("no reply to the watcher's hello") }
            presenting.attached.wrappingAdd(1, ordering: .relaxed)
            // Until the drag has ended and its last change's full frame has come (or the time-out).
            let wait = ContinuousClock.now + .seconds(options.timeoutSeconds * 4)
            while ContinuousClock.now < wait, !presenting.failed.load(ordering: .relaxed) {
                if let end = presenting.ended.withLock({ $0 }),
                   frames.withLock({ $0.contains { !$0.coarse && $0.seq >= end.last } }) { break }
                Thread.sleep(forTimeInterval: 0.01)
            }
        } catch {
            result.error = String(describing: error)
        }
        guard let end = presenting.ended.withLock({ $0 }) else { return result }
        let sent = presenting.sentAt.withLock { $0 }
        let seen = frames.withLock { $0 }
        for seq in end.first...end.last {
            guard let at = sent[seq], let answer = seen.first(where: { !$0.coarse && $0.seq >= seq && $0.at >= at }) else { continue }
            result.finalLatencies.append(Self.ms(answer.at - at))
        }
        if let start = sent[end.first] {
            let during = seen.filter { $0.at >= start && $0.at <= end.at }.count
            let span = Self.ms(end.at - start)
            if span > 0 { result.updatesPerSecond = Double(during) / (span / 1000) }
        }
        if result.finalLatencies.isEmpty, result.error == nil { result.error = "no full frame of \(presenting.finalCell.withLock { $0 }) reached a watcher" }
        return result
    }

    static func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
}
