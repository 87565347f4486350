import DepthbookDocument
import Foundation

/// Every event the server pushes without being asked, typed: `{"type": "event", "event": <name>, …fields}`.
/// The server encodes them (`message()`); a client reads them back (`StudioEvent.decode`), as the load test does.
public enum StudioEvent: Sendable, Equatable {
    /// A cell's render failed for this change; the page shows the message on the cell.
    case cellError(CellError)
    /// How far an export has got, for the request that asked for it.
    case progress(Progress)
    /// An export that has not started, and why: it waits for a worker (it starts with `progress` 0).
    case waiting(Waiting)
    /// The editor's notebook (and photo) as it now is, for the pages watching the session.
    case notebook(NotebookChange)
    /// The open photo gained a plane made after it opened (the learned person matte): its facts as they now are.
    /// Frames sent before it are of the photo without it; the page asks for its cells again.
    case photo(PhotoChange)

    public struct CellError: Sendable, Equatable, Codable {
        public var cell: String
        public var seq: Int
        /// The frame slot that failed: `preview` or `crop`.
        public var kind: String
        public var message: String

        public init(cell: String, seq: Int, kind: String, message: String) {
            (self.cell, self.seq, self.kind, self.message) = (cell, seq, kind, message)
        }
    }

    public struct Progress: Sendable, Equatable, Codable {
        /// The id of the `export` request.
        public var request: Int
        /// 0…1.
        public var fraction: Double

        public init(request: Int, fraction: Double) {
            self.request = request
            self.fraction = min(1, max(0, fraction))
        }
    }

    public struct Waiting: Sendable, Equatable, Codable {
        /// The id of the request that waits.
        public var request: Int
        /// What it waits for, in words a page shows.
        public var reason: String

        public init(request: Int, reason: String) {
            (self.request, self.reason) = (request, reason)
        }
    }

    public struct NotebookChange: Sendable, Equatable, Codable {
        /// Left out when only the photo changed.
        public var notebook: Notebook?
        /// The notebook's graph, whenever the notebook is there.
        public var graph: NotebookGraph?
        /// The photo's facts, when the photo changed.
        public var photo: JSONValue?

        public init(notebook: Notebook?, graph: NotebookGraph?, photo: JSONValue? = nil) {
            self.notebook = notebook
            self.graph = graph
            self.photo = photo
        }
    }

    public struct PhotoChange: Sendable, Equatable, Codable {
        /// The photo's facts, as `openPhoto` returns them.
        public var photo: JSONValue

        public init(photo: JSONValue) {
            self.photo = photo
        }
    }

    /// The event's name on the wire.
    public var name: String {
        switch self {
        case .cellError: "cellError"
        case .progress: "progress"
        case .waiting: "waiting"
        case .notebook: "notebook"
        case .photo: "photo"
        }
    }

    /// The text frame that carries the event.
    public func message() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Strings, numbers and a notebook that was decoded once always encode; empty keeps the signature total.
        return (try? Array(encoder.encode(Tagged(event: self)))) ?? []
    }

    /// The event a text frame carries; nil for a frame that is not an event (a reply) or not one of these.
    public static func decode(_ text: String) -> StudioEvent? {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        guard let head = try? decoder.decode(Head.self, from: data), head.type == "event" else { return nil }
        switch head.event {
        case "cellError": return (try? decoder.decode(CellError.self, from: data)).map(StudioEvent.cellError)
        case "progress": return (try? decoder.decode(Progress.self, from: data)).map(StudioEvent.progress)
        case "waiting": return (try? decoder.decode(Waiting.self, from: data)).map(StudioEvent.waiting)
        case "notebook": return (try? decoder.decode(NotebookChange.self, from: data)).map(StudioEvent.notebook)
        case "photo": return (try? decoder.decode(PhotoChange.self, from: data)).map(StudioEvent.photo)
        default: return nil
        }
    }

    private struct Head: Decodable {
        var type: String
        var event: String
    }

    /// The event's fields with `type` and `event` beside them, in one JSON object.
    private struct Tagged: Encodable {
        let event: StudioEvent

        enum Keys: String, CodingKey { case type, event }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode("event", forKey: .type)
            try c.encode(event.name, forKey: .event)
            switch event {
            case .cellError(let body): try body.encode(to: encoder)
            case .progress(let body): try body.encode(to: encoder)
            case .waiting(let body): try body.encode(to: encoder)
            case .notebook(let body): try body.encode(to: encoder)
            case .photo(let body): try body.encode(to: encoder)
            }
        }
    }
}
