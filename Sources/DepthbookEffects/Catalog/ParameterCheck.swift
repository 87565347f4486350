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

    /// Checks every step of `notebook` whose effect the catalog knows (unknown effects are reported by the
    /// cell when it renders, so a notebook from a newer Depthbook still opens).
    public static func check(_ notebook: Notebook) throws(EffectError) {
        for cell in notebook.cells where cell.kind == .step {
            guard let id = cell.effect, EffectCatalog.effect(id) != nil else { continue }
            do {
                try check(cell.params ?? [:], effect: id)
            } catch {
                throw .badRequest("cell \"\(cell.id)\": \(error)")
            }
        }
    }
}
