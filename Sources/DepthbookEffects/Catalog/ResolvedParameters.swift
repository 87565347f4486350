import DepthbookDocument

/// A cell's parameters with the defaults filled in. Effects read typed values from here and never see raw JSON.
/// Nothing is checked here: the values were checked against the effect's table once, when the notebook or the
/// change arrived (`NotebookValidator`, `CheckedNotebook.setting`).
public struct ResolvedParameters: Sendable, Equatable, Hashable {
    public let effect: String
    public let values: [String: ParameterValue]
    /// The names the cell set itself (the others hold defaults).
    public let given: Set<String>

    public init(_ given: [String: ParameterValue], for description: EffectDescription) {
        var values = [String: ParameterValue]()
        for p in description.parameters {
            values[p.name] = given[p.name] ?? p.defaultValue
        }
        self.effect = description.id
        self.values = values
        self.given = Set(given.keys)
    }

    /// The value of `parameter`: the cell's, else the default. A handle whose row is not in this effect's table
    /// reads its own default (its row's), never a zero nobody chose.
    func value<Value>(_ parameter: Param<Value>) -> ParameterValue {
        values[parameter.row.name] ?? parameter.row.defaultValue
    }

    /// Whether the cell set `name` itself rather than leaving it to the default (or to the photo).
    func isGiven(_ name: String) -> Bool { given.contains(name) }
}
