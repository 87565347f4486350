import DepthbookDocument
import DepthbookMessages
import DepthbookEffects
import DepthbookProtocol

/// The `result` objects of replies, one type per request (see the table in `docs/protocol.md`).
struct HelloResult: Encodable, Sendable {
    /// The session's public id: what a watch link carries.
    var session: String
    /// The editor's secret for taking the session back after a reload (`hello` with `session` and `resume`);
    /// given only to an editor, never to a watcher.
    var resume: String?
    var `protocol`: Int
    var server: String
    var resumed: Bool
    var role: SessionRole
    /// `full`, or `read` for a client without the studio's access token: it may open and look, not change.
    var access: ConnectionAccess
    /// Every bound the server checks on requests, so the page hard-codes none of them.
    var limits: Limits
    /// The photo planes a preview may name directly.
    var planes: [String]
    /// What the session already shows (after a resume, or for a watcher), with its graph; absent for a new session.
    var notebook: Notebook?
    var graph: NotebookGraph?
    var photo: JSONValue?
    var shared: String?
    /// An export the page's previous connection asked for and left before it finished: it runs again now, and
    /// its events and reply come under `request`, the id it was asked with.
    var export: ResumedExport?
}

struct ResumedExport: Encodable, Sendable {
    var request: Int
    var cell: String
    var format: ExportFormat
}

struct SamplesResult: Encodable, Sendable { var samples: [SampleSummary] }
struct NotebooksResult: Encodable, Sendable { var notebooks: [BundledNotebooks.Entry] }
struct EffectsResult: Encodable, Sendable { var effects: JSONValue }

struct OpenNotebookResult: Encodable, Sendable {
    var notebook: Notebook
    var graph: NotebookGraph
    var photo: JSONValue
    var shared: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(notebook, forKey: .notebook)
        try c.encode(graph, forKey: .graph)
        try c.encode(photo, forKey: .photo)
        try c.encode(shared, forKey: .shared)  // null for a bundled notebook
    }

    enum CodingKeys: String, CodingKey { case notebook, graph, photo, shared }
}

struct PhotoResult: Encodable, Sendable { var photo: JSONValue }
struct NotebookResult: Encodable, Sendable {
    var notebook: Notebook
    var graph: NotebookGraph
}
struct CellSeqResult: Encodable, Sendable {
    var cell: String
    var seq: Int
}
/// A parameter change: the cell and seq asked, and every render it scheduled under that seq (the cell first, then
/// the previewed cells below that read it), so a page knows which frames are coming without a graph of its own.
struct SetParamsResult: Encodable, Sendable {
    var cell: String
    var seq: Int
    var renders: [CellSeqResult]
}
struct SaveResult: Encodable, Sendable {
    var shared: String
    var url: String
}
struct ExportResult: Encodable, Sendable {
    var url: String
    var bytes: Int
}
