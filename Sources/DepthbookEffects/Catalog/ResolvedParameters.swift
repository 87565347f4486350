/// A cell's parameters checked against its effect's table: defaults filled in, unknown names refused,
/// every value in range. Effects read typed values from here and never see raw JSON.
public struct ResolvedParameters: Sendable, Equatable, Hashable {
    public let effect: String
    public let values: [String: ParameterValue]
    /// The names the cell set itself (the others hold defaults).
    public let given: Set<String>

    public init(_ given: [String: ParameterValue], for description: EffectDescription) throws(EffectError) {
        for name in given.keys.sorted() where description.parameter(name) == nil {
            throw .unknownParameter(effect: description.id, name: name)
        }
        var values = [String: ParameterValue]()
        for p in description.parameters {
            values[p.name] = try p.validate(given[p.name] ?? p.defaultValue, effect: description.id)
        }
        self.effect = description.id
        self.values = values
        self.given = Set(given.keys)
    }

    public func number(_ name: String) -> Double { values[name]?.number ?? 0 }

    /// Whether the cell set `name` itself rather than leaving it to the default (or to the photo).
    public func isGiven(_ name: String) -> Bool { given.contains(name) }

    public func int(_ name: String) -> Int { Int(number(name).rounded()) }

    public func choice(_ name: String) -> String {
        if case .choice(let c) = values[name] { return c }
        return ""
    }

    /// The upload a parameter names, nil when none.
    public func upload(_ name: String) -> String? {
        guard case .choice(let id) = values[name], !id.isEmpty else { return nil }
        return id
    }

    public func bool(_ name: String) -> Bool {
        if case .bool(let b) = values[name] { return b }
        return false
    }

    /// The point, or nil when it is outside the image (the "not set" convention is (-1, -1)).
    public func point(_ name: String) -> (x: Double, y: Double)? {
        guard case .point(let x, let y) = values[name], (0...1).contains(x), (0...1).contains(y) else { return nil }
        return (x, y)
    }
}
