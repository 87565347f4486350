import DepthbookDocument
import DepthbookProtocol
import Foundation

/// The `result` of each reply, one type per request (the table in docs/protocol.md): the server encodes them, a
/// client decodes them (`StudioResult.decode`), as the load test does. Optional fields are left out when absent,
/// except where a field says it is sent as null.
public enum StudioResult {
    /// The `result` of a reply `{"type": "reply", "id", "ok": true, "result": …}` as `R`, or the error a refused
    /// reply carries.
    public static func decode<R: Decodable>(_ type: R.Type, fromReply reply: JSONValue) throws -> R {
        guard case .object(let fields) = reply else { throw Failure("a reply that is not an object") }
        guard fields["ok"] == .bool(true), let result = fields["result"] else {
            if case .object(let error)? = fields["error"], case .string(let message)? = error["message"] {
                throw Failure(message)
            }
            throw Failure("a refused reply without a message")
        }
        return try JSONDecoder().decode(R.self, from: JSONEncoder().encode(result))
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}

/// What a connection's client proved when it connected: the access token (or none was needed), or not.
public enum ConnectionAccess: String, Sendable, Codable {
    /// May do everything its role allows.
    case full
    /// No token: may open notebooks and look at their renders, never upload, edit, save or export.
    case read
}

/// What a connection is allowed to do in its session.
public enum SessionRole: String, Sendable, Codable {
    case edit
    case watch
}

public struct HelloResult: Sendable, Codable {
    /// The session's public id: what a watch link carries.
    public var session: String
    /// The editor's secret for taking the session back after a reload (`hello` with `session` and `resume`);
    /// given only to an editor, never to a watcher.
    public var resume: String?
    public var `protocol`: Int
    public var server: String
    public var resumed: Bool
    public var role: SessionRole
    /// `full`, or `read` for a client without the studio's access token: it may open and look, not change.
    public var access: ConnectionAccess
    /// Every bound the server checks on requests, so the page hard-codes none of them.
    public var limits: Limits
    /// The photo planes a preview may name directly.
    public var planes: [String]
    /// What the session already shows (after a resume, or for a watcher), with its graph; absent for a new session.
    public var notebook: Notebook?
    public var graph: NotebookGraph?
    public var photo: JSONValue?
    public var shared: String?
    /// An export the page's previous connection asked for and left before it finished: it runs again now, and
    /// its events and reply come under `request`, the id it was asked with.
    public var export: ResumedExport?

    public init(session: String, resume: String?, protocol: Int, server: String, resumed: Bool, role: SessionRole,
                access: ConnectionAccess, limits: Limits, planes: [String], notebook: Notebook?, graph: NotebookGraph?,
                photo: JSONValue?, shared: String?, export: ResumedExport?) {
        (self.session, self.resume, self.protocol, self.server, self.resumed) = (session, resume, `protocol`, server, resumed)
        (self.role, self.access, self.limits, self.planes) = (role, access, limits, planes)
        (self.notebook, self.graph, self.photo, self.shared, self.export) = (notebook, graph, photo, shared, export)
    }
}

public struct ResumedExport: Sendable, Codable {
    public var request: Int
    public var cell: String
    public var format: ExportFormat

    public init(request: Int, cell: String, format: ExportFormat) {
        (self.request, self.cell, self.format) = (request, cell, format)
    }
}

/// A bundled sample photo as `listSamples` describes it.
public struct SampleSummary: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    public var width: Int
    public var height: Int
    public var planes: [String]

    public init(id: String, title: String, width: Int, height: Int, planes: [String]) {
        (self.id, self.title, self.width, self.height, self.planes) = (id, title, width, height, planes)
    }
}

/// A bundled notebook as `listNotebooks` describes it.
public struct NotebookSummary: Sendable, Equatable, Codable {
    public var name: String
    public var title: String
    public var description: String

    public init(name: String, title: String, description: String) {
        (self.name, self.title, self.description) = (name, title, description)
    }
}

public struct SamplesResult: Sendable, Codable {
    public var samples: [SampleSummary]
    public init(samples: [SampleSummary]) { self.samples = samples }
}

public struct NotebooksResult: Sendable, Codable {
    public var notebooks: [NotebookSummary]
    public init(notebooks: [NotebookSummary]) { self.notebooks = notebooks }
}

/// The effect catalog as the page reads it (docs/effects.md has the same in prose).
public struct EffectsResult: Sendable, Codable {
    public var effects: JSONValue
    public init(effects: JSONValue) { self.effects = effects }
}

public struct OpenNotebookResult: Sendable, Codable {
    public var notebook: Notebook
    public var graph: NotebookGraph
    public var photo: JSONValue
    /// The saved version's id; null (sent, not left out) for a bundled notebook.
    public var shared: String?

    public init(notebook: Notebook, graph: NotebookGraph, photo: JSONValue, shared: String?) {
        (self.notebook, self.graph, self.photo, self.shared) = (notebook, graph, photo, shared)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(notebook, forKey: .notebook)
        try c.encode(graph, forKey: .graph)
        try c.encode(photo, forKey: .photo)
        try c.encode(shared, forKey: .shared)
    }

    enum CodingKeys: String, CodingKey { case notebook, graph, photo, shared }
}

public struct PhotoResult: Sendable, Codable {
    public var photo: JSONValue
    public init(photo: JSONValue) { self.photo = photo }
}

/// `setNotebook`'s answer: the notebook as checked (a link's members in step) and its graph.
public struct NotebookResult: Sendable, Codable {
    public var notebook: Notebook
    public var graph: NotebookGraph
    public init(notebook: Notebook, graph: NotebookGraph) { (self.notebook, self.graph) = (notebook, graph) }
}

/// A render asked for (`preview`, `crop`), or one a change scheduled.
public struct CellSeqResult: Sendable, Equatable, Codable {
    public var cell: String
    public var seq: Int
    public init(cell: String, seq: Int) { (self.cell, self.seq) = (cell, seq) }
}

/// A parameter change: the cell and seq asked, and every render it scheduled under that seq (the cell first, then
/// the cells a link moved with it and the previewed cells below that read any of them), so a page knows which
/// frames are coming without a graph of its own.
/// The values it gave the link members it moved (`linked`), so a page shows and stores what the server holds
/// without resolving links itself.
public struct SetParamsResult: Sendable, Codable {
    public var cell: String
    public var seq: Int
    public var renders: [CellSeqResult]
    public var linked: [LinkedValue]
    public init(cell: String, seq: Int, renders: [CellSeqResult], linked: [LinkedValue]) {
        (self.cell, self.seq, self.renders, self.linked) = (cell, seq, renders, linked)
    }
}

/// A link member's value after a change moved it; `value` null (sent, not left out) when the member is left out
/// again, so its default or the photo's value applies.
public struct LinkedValue: Sendable, Equatable, Codable {
    public var cell: String
    public var name: String
    public var value: ParameterValue?
    public init(cell: String, name: String, value: ParameterValue?) { (self.cell, self.name, self.value) = (cell, name, value) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cell, forKey: .cell)
        try c.encode(name, forKey: .name)
        try c.encode(value, forKey: .value)
    }

    enum CodingKeys: String, CodingKey { case cell, name, value }
}

public struct SaveResult: Sendable, Codable {
    public var shared: String
    public var url: String
    public init(shared: String, url: String) { (self.shared, self.url) = (shared, url) }
}

public struct ExportResult: Sendable, Codable {
    public var url: String
    public var bytes: Int
    public init(url: String, bytes: Int) { (self.url, self.bytes) = (url, bytes) }
}

/// `histogram`'s answer: counts over min...max, the threshold's position on that scale (`marker`, sent as null for
/// a cell without one), and how many samples are holes.
public struct HistogramResult: Sendable, Equatable, Codable {
    public var bins: [Int]
    public var min: Double
    public var max: Double
    public var marker: Double?
    public var holes: Int

    public init(bins: [Int], min: Double, max: Double, marker: Double?, holes: Int) {
        (self.bins, self.min, self.max, self.marker, self.holes) = (bins, min, max, marker, holes)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bins, forKey: .bins)
        try c.encode(min, forKey: .min)
        try c.encode(max, forKey: .max)
        try c.encode(marker, forKey: .marker)
        try c.encode(holes, forKey: .holes)
    }

    enum CodingKeys: String, CodingKey { case bins, min, max, marker, holes }
}

/// `checkFormula`'s answer: the sliders the line declares, what it makes (`output`: "image", "plane", or null
/// when that is known only once it renders) and the names it reads; or, refused, where and why (docs/formulas.md).
public struct CheckFormulaResult: Sendable, Equatable, Codable {
    public struct Slider: Sendable, Equatable, Codable {
        public var name: String
        public var min: Double
        public var max: Double
        public var `default`: Double
        public var step: Double
        /// Where its declaration (`$`) starts in the line.
        public var position: Int

        public init(name: String, min: Double, max: Double, default: Double, step: Double, position: Int) {
            (self.name, self.min, self.max, self.default, self.step, self.position) = (name, min, max, `default`, step, position)
        }
    }

    public struct Problem: Sendable, Equatable, Codable {
        /// Characters of the line before the place the message is about.
        public var position: Int
        public var message: String
        public init(position: Int, message: String) { (self.position, self.message) = (position, message) }
    }

    public var ok: Bool { error == nil }
    public var sliders: [Slider]
    public var output: String?
    public var references: [String]
    public var error: Problem?

    /// A line that parses.
    public init(sliders: [Slider], output: String?, references: [String]) {
        (self.sliders, self.output, self.references, self.error) = (sliders, output, references, nil)
    }

    /// A line refused.
    public init(error: Problem) {
        (self.sliders, self.output, self.references, self.error) = ([], nil, [], error)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if try c.decode(Bool.self, forKey: .ok) {
            self.init(sliders: try c.decode([Slider].self, forKey: .sliders), output: try c.decodeIfPresent(String.self, forKey: .output),
                      references: try c.decode([String].self, forKey: .references))
        } else {
            self.init(error: try c.decode(Problem.self, forKey: .error))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ok, forKey: .ok)
        if let error {
            try c.encode(error, forKey: .error)
        } else {
            try c.encode(sliders, forKey: .sliders)
            try c.encode(output, forKey: .output)
            try c.encode(references, forKey: .references)
        }
    }

    enum CodingKeys: String, CodingKey { case ok, sliders, output, references, error }
}
