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

    /// The planes or cells this cell reads through `input` and `inputs` (a formula's line names more, which only
    /// its parser can read: the effects' `references` adds them).
    public var inputReferences: [String] {
        var all = [String]()
        if let input { all.append(input) }
        if let inputs { all += inputs.keys.sorted().compactMap { inputs[$0] } }
        return all
    }

    /// Whether the cell has a picture to render (photo, view, step and formula cells).
    public var rendersImage: Bool { kind.rendersImage }

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
