import DepthbookProtocol

/// A notebook: a recipe of cells over one photo. See `docs/notebook-format.md`.
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
        try validate()
    }

    /// How large a notebook may be (`NotebookLimits`, declared with the protocol's other bounds).
    public typealias Limits = NotebookLimits

    public static let limits = DepthbookProtocol.Limits.studio.notebook

    /// Checks the notebook's size against `Notebook.limits`, ids are well formed and unique, every
    /// reference points at a photo plane or an earlier cell (so there are no cycles), and every parameter
    /// against its effect's table or its formula's sliders. Run once, when a notebook arrives (decoding runs it):
    /// a render trusts what it is given.
    public func validate() throws {
        let limits = Notebook.limits
        guard cells.count <= limits.maxCells else {
            throw NotebookError.invalid("a notebook has at most \(limits.maxCells) cells; this one has \(cells.count)")
        }
        for (field, text) in [("name", name), ("title", title), ("description", description)] where text.utf8.count > limits.maxTextLength {
            throw NotebookError.invalid("the \(field) is longer than \(limits.maxTextLength) bytes of UTF-8")
        }
        var seen = Set<String>()
        /// Per cell, the length of the longest chain of cells ending at it.
        var depth: [String: Int] = [:]
        /// What each cell above gives a formula (checked as they come).
        var scope = FormulaScope(below: Set(cells.map(\.id)))
        for cell in cells {
            if (cell.text?.utf8.count ?? 0) > limits.maxTextLength {
                throw NotebookError.invalid("cell \"\(cell.id)\" has more than \(limits.maxTextLength) bytes of text")
            }
            if (cell.params?.count ?? 0) > limits.maxParamsPerCell {
                throw NotebookError.invalid("cell \"\(cell.id)\" has more than \(limits.maxParamsPerCell) parameters")
            }
            if (cell.inputs?.count ?? 0) > limits.maxInputsPerCell {
                throw NotebookError.invalid("cell \"\(cell.id)\" has more than \(limits.maxInputsPerCell) inputs")
            }
            for (name, value) in cell.params ?? [:] {
                if case .choice(let text) = value, text.utf8.count > limits.maxValueLength {
                    throw NotebookError.invalid("parameter \"\(name)\" of cell \"\(cell.id)\" is longer than \(limits.maxValueLength) bytes")
                }
            }
            guard Cell.isValidID(cell.id) else { throw NotebookError.invalid("cell id \"\(cell.id)\" must be 1-64 letters, digits, - or _") }
            guard !seen.contains(cell.id) else { throw NotebookError.invalid("cell id \"\(cell.id)\" is used twice") }
            if cell.kind == .formula {
                // Names, types and sliders, each error with its position, before the references are followed.
                scope.current = cell.id
                do {
                    _ = try Formula.parse(cell.formula ?? "", scope: scope)
                } catch {
                    throw NotebookError.formula(cell: cell.id, error)
                }
            }
            for reference in cell.references {
                let head = PhotoReferences.head(reference)
                if head == "photo" { continue }
                guard seen.contains(head) else {
                    throw NotebookError.invalid("cell \"\(cell.id)\" refers to \"\(reference)\", which is not a photo plane or a cell above it")
                }
            }
            let own = 1 + cell.references.map { depth[PhotoReferences.head($0)] ?? 0 }.max(or: 0)
            guard own <= limits.maxChainDepth else {
                throw NotebookError.invalid("cell \"\(cell.id)\" ends a chain of \(own) cells, each reading the one before; "
                    + "the most is \(limits.maxChainDepth)")
            }
            depth[cell.id] = own
            seen.insert(cell.id)
            scope.add(cell.id, scope.output(of: cell))
        }
        try ParameterCheck.check(self)
    }
}

/// The photo a notebook opens on.
public enum PhotoReference: Sendable, Equatable, Hashable, Codable {
    case sample(String)
    case upload(String)
    case path(String)

    enum CodingKeys: String, CodingKey { case sample, upload, path }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let s = try c.decodeIfPresent(String.self, forKey: .sample) { self = .sample(s) }
        else if let u = try c.decodeIfPresent(String.self, forKey: .upload) { self = .upload(u) }
        else if let p = try c.decodeIfPresent(String.self, forKey: .path) { self = .path(p) }
        else { throw NotebookError.invalid("photo must be {\"sample\": id}, {\"upload\": sha256} or {\"path\": file}") }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .sample(let s): try c.encode(s, forKey: .sample)
        case .upload(let u): try c.encode(u, forKey: .upload)
        case .path(let p): try c.encode(p, forKey: .path)
        }
    }
}

/// One cell of a notebook. Fields that do not apply to a kind are nil.
public struct Cell: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case note, photo, view, step, formula, unsupported

        /// Whether a cell of this kind has a picture to preview, crop or export.
        public var rendersImage: Bool { [.photo, .view, .step, .formula].contains(self) }
    }

    public var id: String
    /// The kind as written; unknown kinds are kept verbatim and read as `.unsupported`.
    public var kindName: String
    public var text: String?
    /// `view`: what it shows.
    public var input: String?
    public var histogram: Bool?
    /// `step`: the effect, its inputs and parameters.
    public var effect: String?
    public var inputs: [String: String]?
    public var params: [String: ParameterValue]?
    /// `formula`: the line (docs/formulas.md); `params` then holds the sliders moved from their defaults.
    public var formula: String?
    /// Extra fields of unknown kinds, kept as is.
    public var extra: [String: JSONValue]?

    public var kind: Kind { Kind(rawValue: kindName) ?? .unsupported }

    public init(id: String, kind: Kind, text: String? = nil, input: String? = nil, histogram: Bool? = nil,
                effect: String? = nil, inputs: [String: String]? = nil, params: [String: ParameterValue]? = nil,
                formula: String? = nil) {
        self.id = id
        self.kindName = kind.rawValue
        self.text = text
        self.input = input
        self.histogram = histogram
        self.effect = effect
        self.inputs = inputs
        self.params = params
        self.formula = formula
    }

    /// Every plane or cell this cell reads (a formula's in order of first use; none when it does not parse).
    public var references: [String] {
        var all = [String]()
        if let input { all.append(input) }
        if let inputs { all += inputs.keys.sorted().compactMap { inputs[$0] } }
        if kind == .formula, let formula { all += Formula.references(of: formula) }
        return all
    }

    /// Whether the cell has a picture to render (photo, view, step and formula cells).
    public var rendersImage: Bool { kind.rendersImage }

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }

    enum CodingKeys: String, CodingKey { case id, kind, text, input, histogram, effect, inputs, params, formula }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        kindName = try c.decode(String.self, forKey: .kind)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        input = try c.decodeIfPresent(String.self, forKey: .input)
        histogram = try c.decodeIfPresent(Bool.self, forKey: .histogram)
        effect = try c.decodeIfPresent(String.self, forKey: .effect)
        inputs = try c.decodeIfPresent([String: String].self, forKey: .inputs)
        params = try c.decodeIfPresent([String: ParameterValue].self, forKey: .params)
        formula = try c.decodeIfPresent(String.self, forKey: .formula)
        if Kind(rawValue: kindName) == nil {
            extra = try decoder.singleValueContainer().decode([String: JSONValue].self)
        }
        if kind == .step && effect == nil { throw NotebookError.invalid("step cell \"\(id)\" names no effect") }
        if kind == .formula && formula == nil { throw NotebookError.invalid("formula cell \"\(id)\" has no formula") }
    }

    public func encode(to encoder: any Encoder) throws {
        if kind == .unsupported, let extra {
            try extra.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kindName, forKey: .kind)
        try c.encodeIfPresent(text, forKey: .text)
        try c.encodeIfPresent(input, forKey: .input)
        try c.encodeIfPresent(histogram, forKey: .histogram)
        try c.encodeIfPresent(effect, forKey: .effect)
        try c.encodeIfPresent(inputs, forKey: .inputs)
        try c.encodeIfPresent(params, forKey: .params)
        try c.encodeIfPresent(formula, forKey: .formula)
    }
}

/// Why a notebook could not be read or run; the message tells the user what to change.
public enum NotebookError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    /// A formula cell's line does not parse or names what is not there: where, and why.
    case formula(cell: String, FormulaError)

    public var description: String {
        switch self {
        case .invalid(let m): return "invalid notebook: \(m)"
        case let .formula(cell, error): return "invalid notebook: cell \"\(cell)\": formula \(error)"
        }
    }
}

extension Sequence where Element: Comparable {
    /// The largest element, or `fallback` for an empty sequence.
    func max(or fallback: Element) -> Element { self.max() ?? fallback }
}
