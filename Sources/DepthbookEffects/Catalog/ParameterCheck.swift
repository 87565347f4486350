import DepthbookDocument

/// Parameters checked against the catalog before a notebook or a change is accepted, so a refused value never
/// reaches a session, a render or the store.
public enum ParameterCheck {
    /// Checks `params` (a partial change or a cell's whole set) against effect `id`'s table: every name known,
    /// every value of its type and in its range. Throws the error naming the parameter and what it accepts.
    /// `unset` names parameters to leave out again; each must exist.
    public static func check(_ params: [String: ParameterValue], unset: [String] = [], effect id: String) throws(EffectError) {
        guard let effect = EffectCatalog.effect(id) else { throw .unknownEffect(id) }
        let description = effect.description
        for name in unset.sorted() where description.parameter(name) == nil {
            throw .unknownParameter(effect: id, name: name)
        }
        for name in params.keys.sorted() {
            guard let row = description.parameter(name) else { throw .unknownParameter(effect: id, name: name) }
            _ = try row.validate(params[name]!, effect: id)
        }
    }

    /// Checks `params` (a change, or the whole set) against a formula's sliders: every name declared, every value a
    /// number within the declared range. `unset` names sliders to put back to their defaults; each must exist.
    public static func check(_ params: [String: ParameterValue], unset: [String] = [], sliders: [FormulaSlider]) throws(EffectError) {
        for name in unset.sorted() where !sliders.contains(where: { $0.name == name }) {
            throw .unknownParameter(effect: "formula", name: name)
        }
        for name in params.keys.sorted() {
            guard let slider = sliders.first(where: { $0.name == name }) else { throw .unknownParameter(effect: "formula", name: name) }
            _ = try slider.parameter.validate(params[name]!, effect: "formula")
        }
    }

    /// Checks a change to `cell`'s parameters: a step's against its effect's table, a formula's against the sliders
    /// its line declares. Other cells have no parameters.
    public static func check(_ params: [String: ParameterValue], unset: [String] = [], cell: Cell) throws(EffectError) {
        switch cell.kind {
        case .step:
            try check(params, unset: unset, effect: cell.effect ?? "")
        case .formula:
            let parsed: ParsedFormula
            do { parsed = try FormulaParser.parsed(cell.formula ?? "") } catch { throw .badFormula(cell: cell.id, error) }
            try check(params, unset: unset, sliders: parsed.sliders)
        default:
            throw .badRequest("cell \"\(cell.id)\" is a \(cell.kindName) cell; only step and formula cells have parameters")
        }
    }
}
