import DepthbookDocument

/// A notebook `NotebookValidator` accepted, with what checking it learnt (each formula parsed, each cell's output
/// kind, the graph drawn from them): what sessions keep, what the page's graph comes from, what a render reads.
/// Only the validator makes one, and its edits below keep it checked, so nothing downstream checks again.
public struct CheckedNotebook: Sendable, Equatable {
    public let notebook: Notebook
    /// Each formula cell's parsed line, by cell id.
    public let formulas: [String: Formula]
    /// `image` or `plane` for each cell whose picture's kind is known before it renders.
    let outputs: [String: EffectInput.Kind]
    /// What each cell reads and what a change to it re-renders. Drawn once, when the notebook is checked: no edit
    /// below changes a reference, a kind or a formula, so a slider's change or another photo keeps it.
    public let graph: NotebookGraph

    init(notebook: Notebook, formulas: [String: Formula], outputs: [String: EffectInput.Kind]) {
        self.notebook = notebook
        self.formulas = formulas
        self.outputs = outputs
        self.graph = Self.graph(of: notebook, formulas: formulas, outputs: outputs)
    }

    private init(notebook: Notebook, keeping checked: CheckedNotebook) {
        self.notebook = notebook
        self.formulas = checked.formulas
        self.outputs = checked.outputs
        self.graph = checked.graph
    }

    /// Every plane or cell `cell` reads: its inputs, then a formula's names from its parsed line (in order of
    /// first use; `subject` reads `photo.disparity`).
    static func references(of cell: Cell, formula: Formula?) -> [String] {
        cell.inputReferences + (formula?.references ?? [])
    }

    /// Every plane or cell `cell` reads.
    public func references(of cell: Cell) -> [String] {
        Self.references(of: cell, formula: formulas[cell.id])
    }

    /// Cells after `cell` that read it directly or through other cells, in notebook order: what a change to
    /// `cell` re-renders.
    public func dependents(of cell: String) -> [String] { graph.dependents(of: cell) }

    private static func graph(of notebook: Notebook, formulas: [String: Formula],
                              outputs: [String: EffectInput.Kind]) -> NotebookGraph {
        let heads = notebook.cells.map { cell in
            references(of: cell, formula: formulas[cell.id]).map(PhotoReferences.head)
        }
        var nodes: [String: NotebookGraph.Node] = [:]
        for (index, cell) in notebook.cells.enumerated() {
            var reads: [String] = []
            for head in heads[index] where head != "photo" && !reads.contains(head) {
                reads.append(head)
            }
            // Everything below that reads this cell, or a cell already found to read it.
            var affected: Set<String> = [cell.id]
            var dependents: [String] = []
            for later in notebook.cells.indices where later > index && heads[later].contains(where: affected.contains) {
                affected.insert(notebook.cells[later].id)
                dependents.append(notebook.cells[later].id)
            }
            nodes[cell.id] = NotebookGraph.Node(renders: cell.kind.rendersImage, output: outputs[cell.id]?.rawValue,
                                                reads: reads, dependents: dependents)
        }
        return NotebookGraph(cells: nodes)
    }

    // MARK: Edits that keep the notebook checked

    /// The same recipe on another photo (a photo changes no reference, parameter or formula).
    public func onPhoto(_ photo: PhotoReference) -> CheckedNotebook {
        var moved = notebook
        moved.photo = photo
        return CheckedNotebook(notebook: moved, keeping: self)
    }

    /// `cell`'s parameters with `params` merged in and `unset` removed, the change checked against the cell's
    /// effect or the sliders its formula declared (a `setParams`): the one check a slider's value gets. Members
    /// of a link the change touches take the same value.
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
        // A linked parameter moves its link's other members with it (each within its own range).
        for name in Set(params.keys).union(unset) {
            guard let link = NotebookLinks.link(of: cell, name, in: changed) else { continue }
            changed = NotebookLinks.following(changed, link: link, value: params[name], formulas: formulas)
        }
        return CheckedNotebook(notebook: changed, keeping: self)
    }

    /// A loop's frame: `cell`'s loop parameter `name` at `phase` (0 ≤ phase < 1, inside every loop parameter's
    /// range, so there is nothing to check). A frame is not an edit: no link moves other cells with it.
    func looping(_ cell: String, _ name: String, phase: Double) -> CheckedNotebook {
        guard let index = notebook.cells.firstIndex(where: { $0.id == cell }) else { return self }
        var changed = notebook
        changed.cells[index].params = (changed.cells[index].params ?? [:]).merging([name: .number(phase)]) { $1 }
        return CheckedNotebook(notebook: changed, keeping: self)
    }

    /// The other cells whose values a change to `names` of `cell` moves through links, in notebook order.
    public func cellsLinked(to cell: String, names: some Sequence<String>) -> [String] {
        let linked = Set(membersLinked(to: cell, names: names).map(\.cell))
        return notebook.cells.map(\.id).filter(linked.contains)
    }

    /// The other link members a change to `names` of `cell` moves, in the links' order.
    public func membersLinked(to cell: String, names: some Sequence<String>) -> [NotebookLink.Member] {
        var seen = Set<NotebookLink.Member>()
        return names.flatMap { name in
            (NotebookLinks.link(of: cell, name, in: notebook)?.members ?? []).filter { $0.cell != cell && seen.insert($0).inserted }
        }
    }
}
