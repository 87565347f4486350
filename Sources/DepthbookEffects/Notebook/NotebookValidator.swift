import DepthbookDocument
import DepthbookProtocol

/// Checks a notebook wherever one comes in (the socket, the store, bundled files, an export's XMP, the command
/// line): its size against the limits, ids well formed and unique, every reference pointing at a photo plane or an
/// earlier cell (so there are no cycles), every link joining number parameters (its members then follow its
/// leader), every parameter against its effect's table or its formula's sliders.
/// Decoding a `Notebook` reads its shape only; this is where it is checked, once, and a render trusts the result.
public struct NotebookValidator: Sendable {
    public let limits: NotebookLimits

    public init(limits: NotebookLimits = Limits.studio.notebook) {
        self.limits = limits
    }

    /// The notebook, checked, with each formula cell's line parsed once.
    @discardableResult
    public func check(_ notebook: Notebook) throws -> CheckedNotebook {
        guard notebook.cells.count <= limits.maxCells else {
            throw NotebookError.invalid("a notebook has at most \(limits.maxCells) cells; this one has \(notebook.cells.count)")
        }
        for (field, text) in [("name", notebook.name), ("title", notebook.title), ("description", notebook.description)]
        where text.utf8.count > limits.maxTextLength {
            throw NotebookError.invalid("the \(field) is longer than \(limits.maxTextLength) bytes of UTF-8")
        }
        var seen = Set<String>()
        /// Per cell, the length of the longest chain of cells ending at it.
        var depth: [String: Int] = [:]
        /// What each cell above gives a formula (checked as they come).
        var scope = FormulaScope(below: Set(notebook.cells.map(\.id)))
        var formulas: [String: Formula] = [:]
        var outputs: [String: EffectInput.Kind] = [:]
        for cell in notebook.cells {
            try checkSizes(of: cell)
            guard isValidID(cell.id) else {
                throw NotebookError.invalid("cell id \"\(cell.id)\" must be 1-\(limits.maxCellIDLength) letters, digits, - or _")
            }
            guard !seen.contains(cell.id) else { throw NotebookError.invalid("cell id \"\(cell.id)\" is used twice") }
            if cell.kind == .formula {
                // Names, types and sliders, each error with its position, before the references are followed.
                scope.current = cell.id
                do {
                    formulas[cell.id] = try Formula.parse(cell.formula ?? "", scope: scope)
                } catch {
                    throw NotebookError.formula(cell: cell.id, error)
                }
            }
            let references = CheckedNotebook.references(of: cell, formula: formulas[cell.id])
            for reference in references {
                let head = PhotoReferences.head(reference)
                if head == "photo" { continue }
                guard seen.contains(head) else {
                    throw NotebookError.invalid("cell \"\(cell.id)\" refers to \"\(reference)\", which is not a photo plane or a cell above it")
                }
            }
            if cell.kind == .step { try checkInputs(of: cell, scope: scope) }
            let own = 1 + (references.map { depth[PhotoReferences.head($0)] ?? 0 }.max() ?? 0)
            guard own <= limits.maxChainDepth else {
                throw NotebookError.invalid("cell \"\(cell.id)\" ends a chain of \(own) cells, each reading the one before; "
                    + "the most is \(limits.maxChainDepth)")
            }
            depth[cell.id] = own
            seen.insert(cell.id)
            // A formula's output is its parsed line's (typed once, above); any other cell's follows from its kind.
            let output: FormulaScope.Output = switch (cell.kind, formulas[cell.id]?.output) {
            case (.formula, .image?): .image
            case (.formula, .plane?): .plane
            case (.formula, nil): .unknown
            default: scope.output(of: cell)
            }
            scope.add(cell.id, output)
            if case .image = output { outputs[cell.id] = .image } else if case .plane = output { outputs[cell.id] = .plane }
        }
        // Links checked, and their members brought in step with their leaders before the values are checked.
        let linked = try NotebookLinks.checked(notebook, formulas: formulas, limits: limits)
        try checkParameters(of: linked, formulas: formulas)
        return CheckedNotebook(notebook: linked, formulas: formulas, outputs: outputs)
    }

    private func checkSizes(of cell: Cell) throws {
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
    }

    /// A step's inputs against its effect's slots: each slot it names is one the effect has, and each gets the kind
    /// it takes (an image or a plane) wherever the notebook tells the kind (a photo plane, a cell above with a known
    /// effect or a typed formula). A slot left unconnected is a cell still being made (the page adds a step before
    /// there is anything of the kind to wire it to): its cell says so when it renders, as a cell of an effect the
    /// catalog does not know does.
    private func checkInputs(of cell: Cell, scope: FormulaScope) throws {
        guard let effect = cell.effect.flatMap(EffectCatalog.effect) else { return }
        let d = effect.description, given = cell.inputs ?? [:]
        func refused(_ message: String) -> NotebookError {
            .invalid("cell \"\(cell.id)\": \(EffectError.badInput(effect: d.id, message: message))")
        }
        for slot in given.keys.sorted() where !d.inputs.contains(where: { $0.name == slot }) {
            throw refused("has no input \"\(slot)\" (inputs: \(d.inputs.map(\.name).joined(separator: ", ")))")
        }
        for input in d.inputs {
            guard let reference = given[input.name] else { continue }
            let kind: EffectInput.Kind
            switch scope.output(ofReference: reference) {
            case .image: kind = .image
            case .plane: kind = .plane
            case .nothing(let other): throw refused("input \"\(input.name)\" reads \"\(reference)\", a \(other) cell, which has no image")
            case .unknown: continue
            }
            guard kind == input.kind else { throw refused(input.mismatch(reference, gives: kind)) }
        }
    }

    /// 1 to `maxCellIDLength` ASCII letters, digits, - or _.
    func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= limits.maxCellIDLength && id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }

    /// Every step whose effect the catalog knows against its table (an unknown effect is reported by its cell when
    /// it renders, so a notebook from a newer Depthbook still opens); every formula's values against the sliders its
    /// line declared (parsed above, not again).
    private func checkParameters(of notebook: Notebook, formulas: [String: Formula]) throws(EffectError) {
        for cell in notebook.cells {
            do {
                switch cell.kind {
                case .step:
                    guard let id = cell.effect, EffectCatalog.effect(id) != nil else { continue }
                    try ParameterCheck.check(cell.params ?? [:], effect: id)
                case .formula:
                    guard let formula = formulas[cell.id] else { continue }
                    try ParameterCheck.check(cell.params ?? [:], sliders: formula.sliders)
                default:
                    continue
                }
            } catch {
                throw .badRequest("cell \"\(cell.id)\": \(error)")
            }
        }
    }
}

extension Notebook {
    /// How large a notebook may be (`NotebookLimits`, declared with the protocol's other bounds).
    public typealias Limits = NotebookLimits

    public static var limits: NotebookLimits { DepthbookProtocol.Limits.studio.notebook }
}
