import DepthbookDocument

/// A typed handle on one row of an effect's parameter table. An effect declares each of its parameters once,
/// as a static handle: the row (`row`) is what validation, the page's controls and docs/effects.md read, and
/// the handle is how `build` reads the value (`p[scale]`), as the Swift type the row's kind means. A
/// misspelt parameter is a name the compiler does not know.
public struct Param<Value>: Sendable {
    public let row: EffectParameter

    init(_ row: EffectParameter) { self.row = row }

    /// The same parameter, its value picked from the photo while the cell leaves it out.
    func chosenFromPhoto() -> Param { Param(row.chosenFromPhoto()) }

    /// Another effect's row under this effect's name and label (a composite reusing a step's knob): its range,
    /// step, unit and default stay the step's own.
    func renamed(_ name: String, _ label: String, doc: String? = nil) -> Param { Param(row.renamed(name, label, doc: doc)) }
}

extension Param where Value == Double {
    /// What the effect picked from the photo for this parameter, as `BuiltNode.chosen` reports it.
    func picked(_ value: Double) -> [String: ParameterValue] { [row.name: .number(value)] }
}

extension Param where Value == NormalizedPoint {
    /// What the effect picked from the photo for this parameter (none when nil), as `BuiltNode.chosen` reports it.
    func picked(_ point: (x: Double, y: Double)?) -> [String: ParameterValue] {
        guard let point else { return [:] }
        return [row.name: .point(x: point.x, y: point.y)]
    }
}

/// The value types a handle reads as, for the kinds that have no Swift type of their own.
public enum NormalizedPoint {}
public enum UploadID {}

extension Param where Value == Double {
    /// A number in `range`, moved in `step`s.
    static func number(_ name: String, _ label: String, _ range: ClosedRange<Double>, default value: Double,
                       step: Double, unit: String = "", doc: String) -> Param {
        Param(.number(name, label, range, default: value, step: step, unit: unit, doc: doc))
    }
}

extension Param where Value == String {
    /// One of a few named options.
    static func choice(_ name: String, _ label: String, _ choices: [String], default value: String, doc: String) -> Param {
        Param(.choice(name, label, choices, default: value, doc: doc))
    }
}

extension Param where Value == Bool {
    static func bool(_ name: String, _ label: String, default value: Bool, doc: String) -> Param {
        Param(.bool(name, label, default: value, doc: doc))
    }
}

extension Param where Value == NormalizedPoint {
    /// A point in normalised upright image coordinates; (-1, -1) conventionally means "not set".
    static func point(_ name: String, _ label: String, default value: (Double, Double), doc: String) -> Param {
        Param(.point(name, label, default: value, doc: doc))
    }
}

extension Param where Value == UploadID {
    /// An image the user uploaded to the studio, named by its content id; "" means none.
    static func upload(_ name: String, _ label: String, doc: String) -> Param {
        Param(.upload(name, label, doc: doc))
    }
}

extension ResolvedParameters {
    public subscript(_ parameter: Param<Double>) -> Double { value(parameter).number ?? 0 }

    public subscript(_ parameter: Param<String>) -> String {
        if case .choice(let c) = value(parameter) { return c }
        return ""
    }

    public subscript(_ parameter: Param<Bool>) -> Bool {
        if case .bool(let b) = value(parameter) { return b }
        return false
    }

    /// The point, or nil when it is outside the image (the "not set" convention is (-1, -1)).
    public subscript(_ parameter: Param<NormalizedPoint>) -> (x: Double, y: Double)? {
        guard case .point(let x, let y) = value(parameter), (0...1).contains(x), (0...1).contains(y) else { return nil }
        return (x, y)
    }

    /// The upload the parameter names, nil when none.
    public subscript(_ parameter: Param<UploadID>) -> String? {
        guard case .choice(let id) = value(parameter), !id.isEmpty else { return nil }
        return id
    }

    public func int(_ parameter: Param<Double>) -> Int { Int(self[parameter].rounded()) }

    /// Whether the cell set the parameter itself rather than leaving it to the default (or to the photo).
    public func isGiven<Value>(_ parameter: Param<Value>) -> Bool { isGiven(parameter.row.name) }
}
