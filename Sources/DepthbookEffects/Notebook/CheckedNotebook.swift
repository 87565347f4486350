import DepthbookDocument

/// A notebook `NotebookValidator` accepted, with what checking it learnt (each formula parsed, each cell's output
/// kind): what sessions keep, what the graph is drawn from, what a render reads. Only the validator makes one,
/// and its edits below keep it checked, so nothing downstream checks again.
public struct CheckedNotebook: Sendable, Equatable {
    public let notebook: Notebook
    /// Each formula cell's parsed line, by cell id.
    public let formulas: [String: Formula]
    /// `image` or `plane` for each cell whose picture's kind is known before it renders.
    let outputs: [String: EffectInput.Kind]

    init(notebook: Notebook, formulas: [String: Formula], outputs: [String: EffectInput.Kind]) {
        self.notebook = notebook
        self.formulas = formulas
        self.outputs = outputs
    }

    /// Every plane or cell `cell` reads (a formula's from its parsed line).
    func references(of cell: Cell) -> [String] {
        guard cell.kind == .formula else { return cell.inputReferences }
        return cell.inputReferences + (formulas[cell.id]?.references ?? [])
    }

    /// Cells after `cell` that read it directly or through other cells, in notebook order: what a change to
    /// `cell` re-renders.
    public func dependents(of cell: String) -> [String] {
        var affected: Set<String> = [cell]
        var result: [String] = []
        for other in notebook.cells where other.id != cell {
            if references(of: other).contains(where: { affected.contains(PhotoReferences.head($0)) }) {
                affected.insert(other.id)
                result.append(other.id)
            }
        }
        return result
    }

    /// The graph the page draws from (`NotebookGraph`).
    public var graph: NotebookGraph {
        var nodes: [String: NotebookGraph.Node] = [:]
        for cell in notebook.cells {
            var reads: [String] = []
            for head in references(of: cell).map(PhotoReferences.head) where head != "photo" && !reads.contains(head) {
                reads.append(head)
            }
            nodes[cell.id] = NotebookGraph.Node(renders: cell.kind.rendersImage, output: outputs[cell.id]?.rawValue,
                                                reads: reads, dependents: dependents(of: cell.id))
        }
        return NotebookGraph(cells: nodes)
    }

    // MARK: Edits that keep the notebook checked

    /// The same recipe on another photo (a photo changes no reference, parameter or formula).
    public func onPhoto(_ photo: PhotoReference) -> CheckedNotebook {
        var moved = notebook
        moved.photo = photo
        return CheckedNotebook(notebook: moved, formulas: formulas, outputs: outputs)
    }

    /// `cell`'s parameters with `params` merged in and `unset` removed, the change checked against the cell's
    /// effect or the sliders its formula declared (a `setParams`): the one check a slider's value gets.
    public func setting(_ params: [String: ParameterValue], unset: [String] = [], of cell: String) throws(EffectError) -> CheckedNotebook {
        guard let index = notebook.cells.firstIndex(where: { $0.id == cell }) else { throw .unknownCell(cell) }
        let target = notebook.cells[index]
        switch target.kind {
        case .formula:
            guard let formula = formulas[cell] else { throw .badRequest("cell \"\(cell)\" has no formula") }
            try ParameterCheck.check(params, unset: unset, sliders: formula.sliders)
        default:
            try ParameterCheck.check(params, unset: unset, cell: target)
        }
        var merged = target.params ?? [:]
        merged.merge(params) { _, new in new }
        for name in unset where params[name] == nil { merged[name] = nil }
        var changed = notebook
        changed.cells[index].params = merged
        return CheckedNotebook(notebook: changed, formulas: formulas, outputs: outputs)
    }
}
