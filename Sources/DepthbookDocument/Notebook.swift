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
    public var metadata: [String: JSONValue]

    public init(name: String, title: String, description: String = "", photo: PhotoReference,
                cells: [Cell], metadata: [String: JSONValue] = [:]) {
        self.format = Notebook.formatName
        self.version = Notebook.currentVersion
        self.name = name
        self.title = title
        self.description = description
        self.photo = photo
        self.cells = cells
        self.metadata = metadata
    }

    public func cell(_ id: String) -> Cell? { cells.first { $0.id == id } }

    enum CodingKeys: String, CodingKey { case format, version, name, title, description, photo, cells, metadata }

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
        version = Notebook.currentVersion  // migrated on load (v1 is the first format: nothing to change yet)
    }
}
