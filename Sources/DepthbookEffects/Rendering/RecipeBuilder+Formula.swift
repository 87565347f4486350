import DepthbookDocument
import DepthbookEngine

extension RecipeBuilder {
    /// A formula cell as one engine node: its line as the validator parsed it, its names bound to the planes and
    /// cells they read, its sliders' values folded in as constants, compiled into a `FormulaFilter` whose inputs
    /// are those nodes. Planes read as their view cells show them: depth and disparity normalised to 0…1 over the
    /// photo's range (holes far), mattes and masks as they are.
    mutating func formula(_ cell: Cell) throws -> BuiltNode {
        func failed(_ error: FormulaError) -> EffectError { .badFormula(cell: cell.id, error) }
        guard let parsed = checked.formulas[cell.id]?.parsed else { throw EffectError.notRenderable(cell.id) }
        let sliders = sliderValues(parsed, cell)
        var inputs = [Node]()
        var bindings = [FormulaCompiler.Binding]()
        var types = [FormulaType]()
        for name in parsed.names {
            let built: BuiltNode
            switch name.target {
            case .plane(.subject):
                bindings.append(.uniform(try subjectLevel()))
                types.append(.number)
                continue
            case .plane(let plane): built = try self.plane(plane.reference)
            case .cell(let id): built = try build(id)
            }
            let index: Int
            if let known = inputs.firstIndex(where: { $0.key == built.node.key }) {
                index = known
            } else {
                inputs.append(built.node)
                index = inputs.count - 1
            }
            bindings.append(.input(index, normalize: normalization(built.role)))
            types.append(built.node.kind == .image ? .image : .mask)
        }
        var program: FormulaProgram
        do {
            // The names' kinds as built: a cell whose kind the validator could not tell is typed here.
            _ = try FormulaTypeCheck.check(parsed, names: types)
            program = try FormulaCompiler.compile(parsed, bindings: bindings, inputKinds: inputs.map(\.kind), sliders: sliders)
        } catch {
            throw failed(error)
        }
        // A long chain is built cell by cell: a page that left stops it here too.
        try context.evaluator.context.checkCancelled()
        let frame = PixelSize(width: max(1, context.photo.width), height: max(1, context.photo.height))
        // A formula of one earlier formula's samples runs as one program with it (read from one table).
        if inputs.count == 1, let inner = inputs[0].filter as? FormulaFilter, let both = program.reading(inner.program) {
            program = both
            inputs = inputs[0].inputs
        }
        let node = try Node(FormulaFilter(program, frame: frame), inputs)
        return BuiltNode(node, role: node.kind == .image ? .image : .mask)
    }

    /// Each slider's value: the cell's (checked against the declared range when the notebook arrived), else the
    /// declared default.
    private func sliderValues(_ parsed: ParsedFormula, _ cell: Cell) -> [Float] {
        let given = cell.params ?? [:]
        return parsed.sliders.map { Float(given[$0.name]?.number ?? $0.defaultValue) }
    }

    /// How a node of `role` is read: depth and disparity as their view cells show them, 0…1 over the photo's
    /// range (disparity: 0 farthest, 1 nearest; depth: 0 nearest, 1 farthest), holes as the farthest.
    private func normalization(_ role: PlaneRole) -> (low: Float, scale: Float, hole: Float)? {
        guard case .depth(let kind) = role else { return nil }
        let range = context.photo.depth?.converted(to: kind).range ?? 0...1
        let span = range.upperBound - range.lowerBound
        return (range.lowerBound, span > 0 ? 1 / span : 0, kind == .disparity ? 0 : 1)
    }

    /// `subject`: the subject's disparity on `disparity`'s 0…1 scale, the level Darken by disparity sends to full
    /// brightness: the face's disparity, else the middle of the near side of the depth map (`SubjectCut`); 1 when
    /// no subject stands out from the farthest disparity.
    private func subjectLevel() throws -> Float {
        guard let depth = context.photo.depth else { throw EffectError.missingPlane("photo.disparity") }
        guard let range = depth.converted(to: .disparity).range, range.upperBound > range.lowerBound else { return 1 }
        var high = Double(range.upperBound)
        if let subject = try SubjectCut.subjectDisparity(context), subject > Double(range.lowerBound) {
            high = min(high, subject)
        }
        return (Float(high) - range.lowerBound) / (range.upperBound - range.lowerBound)
    }
}
