/// A notebook: a recipe of cells over one photo. See `docs/notebook-format.md`.
///
/// This is the document alone: decoding reads its shape (format, version, fields of the right types) and nothing
/// more. Whether its cells, references, parameters and formulas make sense is the effects' `NotebookValidator`'s
/// question, asked wherever a notebook comes in (the socket, the store, bundled files, the command line).
public struct Notebook: Sendable, Equatable, Codable {
    public static let formatName = "depthbook.notebook"
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    public var name: String
    public var title: String
    public var description: String
    public var photo: PhotoReference
    public var cells: [Cell]
    /// Parameters of several cells that move as one (`NotebookLink`).
    public var links: [NotebookLink]
    public var metadata: [String: JSONValue]

    public init(name: String, title: String, description: String = "", photo: PhotoReference,
                cells: [Cell], links: [NotebookLink] = [], metadata: [String: JSONValue] = [:]) {
        self.format = Notebook.formatName
        self.version = Notebook.currentVersion
        self.name = name
        self.title = title
        self.description = description
        self.photo = photo
        self.cells = cells
        self.links = links
        self.metadata = metadata
    }

    public func cell(_ id: String) -> Cell? { cells.first { $0.id == id } }

    enum CodingKeys: String, CodingKey { case format, version, name, title, description, photo, cells, links, metadata }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(String.self, forKey: .format)
        guard format == Notebook.formatName else {
            throw NotebookError.invalid("format is \"\(format)\", expected \"\(Notebook.formatName)\"")
        }
        version = try c.decode(Int.self, forKey: .version)
        guard version >= 1 else { throw NotebookError.invalid("version \(version) is not a notebook version") }
        guard version <= Notebook.currentVersion else {
            throw NotebookError.invalid("notebook version \(version) is newer than this Depthbook reads (\(Notebook.currentVersion))")
        }
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? "untitled"
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? name
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        photo = try c.decode(PhotoReference.self, forKey: .photo)
        cells = try c.decode([Cell].self, forKey: .cells)
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
        links = try c.decodeIfPresent([NotebookLink].self, forKey: .links) ?? []
        // Notebooks saved before links were part of the document kept them in the page's metadata: moved here.
        if links.isEmpty, let old = metadata["links"] {
            links = Self.links(inMetadata: old)
            metadata["links"] = nil
        }
        version = Notebook.currentVersion  // migrated on load (v1 is the first format: nothing to change yet)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(name, forKey: .name)
        try c.encode(title, forKey: .title)
        try c.encode(description, forKey: .description)
        try c.encode(photo, forKey: .photo)
        try c.encode(cells, forKey: .cells)
        if !links.isEmpty { try c.encode(links, forKey: .links) }
        try c.encode(metadata, forKey: .metadata)
    }

    /// The old form, `metadata.links: [{label, params: ["cell.name", …]}]`; entries of another shape are dropped.
    private static func links(inMetadata value: JSONValue) -> [NotebookLink] {
        guard case .array(let entries) = value else { return [] }
        return entries.compactMap { entry in
            guard case .object(let fields) = entry, case .array(let params)? = fields["params"] else { return nil }
            let names = params.compactMap { if case .string(let text) = $0 { text } else { nil } }
            let label = if case .string(let text)? = fields["label"] { text } else { names.first ?? "" }
            return NotebookLink(label: label, params: names)
        }
    }
}
