import DepthbookDocument

/// One documented knob of an effect: the table row that drives validation, the notebook JSON, the page's
/// slider and docs/effects.md (name, label, range, default, unit, one line of doc). Effects declare each
/// row once through a typed handle (`Param`) and read values through it.
public struct EffectParameter: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case number, choice, bool, point, upload }

    public let name: String
    public let label: String
    public let kind: Kind
    public let min: Double?
    public let max: Double?
    public let step: Double?
    public let defaultValue: ParameterValue
    public let unit: String
    public let choices: [String]
    public let doc: String
    /// When a cell leaves the parameter out, the effect picks its value from the photo (reported with the frame)
    /// instead of using the default, which is then only the reset value's fallback.
    public var fromPhoto = false

    /// A number in `range`, moved in `step`s.
    public static func number(_ name: String, _ label: String, _ range: ClosedRange<Double>, default value: Double,
                              step: Double, unit: String = "", doc: String) -> EffectParameter {
        EffectParameter(name: name, label: label, kind: .number, min: range.lowerBound, max: range.upperBound, step: step,
                        defaultValue: .number(value), unit: unit, choices: [], doc: doc)
    }

    /// The same row, its value picked from the photo while the cell leaves it out.
    func chosenFromPhoto() -> EffectParameter {
        var copy = self
        copy.fromPhoto = true
        return copy
    }

    /// The same row under another name and label (and doc, when given).
    func renamed(_ name: String, _ label: String, doc: String? = nil) -> EffectParameter {
        var copy = EffectParameter(name: name, label: label, kind: kind, min: min, max: max, step: step, defaultValue: defaultValue,
                                   unit: unit, choices: choices, doc: doc ?? self.doc)
        copy.fromPhoto = fromPhoto
        return copy
    }

    /// One of a few named options.
    public static func choice(_ name: String, _ label: String, _ choices: [String], default value: String,
                              doc: String) -> EffectParameter {
        EffectParameter(name: name, label: label, kind: .choice, min: nil, max: nil, step: nil,
                        defaultValue: .choice(value), unit: "", choices: choices, doc: doc)
    }

    public static func bool(_ name: String, _ label: String, default value: Bool, doc: String) -> EffectParameter {
        EffectParameter(name: name, label: label, kind: .bool, min: nil, max: nil, step: nil,
                        defaultValue: .bool(value), unit: "", choices: [], doc: doc)
    }

    /// A point in normalised upright image coordinates; (-1, -1) conventionally means "not set".
    public static func point(_ name: String, _ label: String, default value: (Double, Double), doc: String) -> EffectParameter {
        EffectParameter(name: name, label: label, kind: .point, min: nil, max: nil, step: nil,
                        defaultValue: .point(x: value.0, y: value.1), unit: "", choices: [], doc: doc)
    }

    /// An image the user uploaded to the studio, named by its content id (64 hex digits); "" means none.
    public static func upload(_ name: String, _ label: String, doc: String) -> EffectParameter {
        EffectParameter(name: name, label: label, kind: .upload, min: nil, max: nil, step: nil,
                        defaultValue: .choice(""), unit: "", choices: [], doc: doc)
    }

    /// Checks a value the notebook gives against this row, returning it or a message saying what to change.
    func validate(_ value: ParameterValue, effect: String) throws(EffectError) -> ParameterValue {
        switch (kind, value) {
        case (.number, .number(let n)):
            guard n.isFinite else { throw .badParameter(effect: effect, name: name, message: "must be a finite number") }
            if let min, let max, n < min - 1e-9 || n > max + 1e-9 {
                throw .badParameter(effect: effect, name: name, message: "must be between \(Self.shown(min)) and \(Self.shown(max)), not \(Self.shown(n))")
            }
            return value
        case (.choice, .choice(let c)):
            guard choices.contains(c) else {
                throw .badParameter(effect: effect, name: name, message: "\"\(c)\" is not one of \(choices.joined(separator: ", "))")
            }
            return value
        case (.bool, .bool):
            return value
        case (.upload, .choice(let id)):
            guard id.isEmpty || Self.isUploadID(id) else {
                throw .badParameter(effect: effect, name: name, message: "must name an upload by its 64-hex-digit id, or be empty")
            }
            return value
        case (.point, .point(let x, let y)):
            guard x.isFinite, y.isFinite else { throw .badParameter(effect: effect, name: name, message: "must be a finite point") }
            return value
        default:
            throw .badParameter(effect: effect, name: name, message: "expects a \(kind.rawValue)")
        }
    }
}

extension EffectParameter {
    /// A number as people write it: 90, not 90.0.
    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The studio names uploads by the SHA-256 of their bytes, in lowercase hex.
    static func isUploadID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// One input slot of an effect.
public struct EffectInput: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case image, plane }
    public let name: String
    public let kind: Kind
    public let optional: Bool

    public init(_ name: String, _ kind: Kind, optional: Bool = false) {
        self.name = name
        self.kind = kind
        self.optional = optional
    }

    /// Why `reference`, which gives `given`, cannot feed this input: the one wording, whether the validator or the
    /// render finds it.
    func mismatch(_ reference: String, gives given: Kind) -> String {
        "input \"\(name)\" needs \(kind == .image ? "an image" : "a plane (depth, matte or mask)"), but \"\(reference)\" is \(given == .image ? "an image" : "a plane")"
    }
}

/// Everything the page needs to show an effect: the `effects` request answers a list of these.
public struct EffectDescription: Sendable, Equatable, Encodable {
    public let id: String
    public let title: String
    public let summary: String
    public let output: EffectInput.Kind
    public let inputs: [EffectInput]
    public let parameters: [EffectParameter]
    /// For an animated effect, the 0...1 number parameter that walks its loop (0 and 1 the same frame):
    /// a GIF export renders the cell at evenly spaced values of it. Nil for still effects.
    public let loopParameter: String?

    /// Whether the effect animates, so the page offers GIF export for its cells.
    public var animated: Bool { loopParameter != nil }

    public init(id: String, title: String, summary: String, output: EffectInput.Kind, inputs: [EffectInput],
                parameters: [EffectParameter], loopParameter: String? = nil) {
        self.id = id
        self.title = title
        self.summary = summary
        self.output = output
        self.inputs = inputs
        self.parameters = parameters
        self.loopParameter = loopParameter
    }

    public func parameter(_ name: String) -> EffectParameter? { parameters.first { $0.name == name } }

    enum CodingKeys: String, CodingKey { case id, title, summary, output, animated, inputs, parameters }
    enum InputKeys: String, CodingKey { case name, kind, optional }
    enum ParameterKeys: String, CodingKey { case name, label, type, min, max, step, `default`, unit, choices, doc, fromPhoto }

    /// The JSON shape of `docs/protocol.md` (`effects` request).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(summary, forKey: .summary)
        try c.encode(output, forKey: .output)
        try c.encode(animated, forKey: .animated)
        var inputList = c.nestedUnkeyedContainer(forKey: .inputs)
        for input in inputs {
            var i = inputList.nestedContainer(keyedBy: InputKeys.self)
            try i.encode(input.name, forKey: .name)
            try i.encode(input.kind, forKey: .kind)
            try i.encode(input.optional, forKey: .optional)
        }
        var parameterList = c.nestedUnkeyedContainer(forKey: .parameters)
        for p in parameters {
            var e = parameterList.nestedContainer(keyedBy: ParameterKeys.self)
            try e.encode(p.name, forKey: .name)
            try e.encode(p.label, forKey: .label)
            try e.encode(p.kind, forKey: .type)
            try e.encodeIfPresent(p.min, forKey: .min)
            try e.encodeIfPresent(p.max, forKey: .max)
            try e.encodeIfPresent(p.step, forKey: .step)
            try e.encode(p.defaultValue, forKey: .default)
            if p.fromPhoto { try e.encode(true, forKey: .fromPhoto) }
            try e.encode(p.unit, forKey: .unit)
            if !p.choices.isEmpty { try e.encode(p.choices, forKey: .choices) }
            try e.encode(p.doc, forKey: .doc)
        }
    }
}
