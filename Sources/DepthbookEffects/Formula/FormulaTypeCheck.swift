import DepthbookDocument

/// What the cells above a formula give, so its names can be checked before anything renders.
struct FormulaScope: Sendable {
    /// What a cell gives a formula.
    enum Output: Sendable, Equatable {
        case image, plane
        /// Known only when it renders (a step of an effect this Depthbook does not know).
        case unknown
        /// A note or a cell of an unknown kind: nothing to read.
        case nothing(kind: String)
    }

    /// Cells above the formula, in notebook order.
    private(set) var cells: [(id: String, output: Output)] = []
    private var index: [String: Output] = [:]
    /// The formula's own cell and the cells below it, for clearer messages.
    var current: String?
    var below: Set<String> = []

    /// An empty scope; `below` the ids of the cells still to come.
    init(below: Set<String> = []) {
        self.below = below
    }

    /// The cell `id` is above the formulas to come (and no longer below them).
    mutating func add(_ id: String, _ output: Output) {
        if index[id] == nil { cells.append((id, output)) }
        index[id] = output
        below.remove(id)
    }

    func output(of id: String) -> Output? { index[id] }

    /// The scope of the cell at `position` in `notebook` (every cell when `position` is past the end), each cell's
    /// output found from the catalog, its input, or (for formulas) its own text.
    init(_ notebook: Notebook, before position: Int) {
        for (k, cell) in notebook.cells.enumerated() {
            if k < position { add(cell.id, output(of: cell)) } else if k == position { current = cell.id } else { below.insert(cell.id) }
        }
    }

    /// What `cell` gives, given the cells above it (already in this scope).
    func output(of cell: Cell) -> Output {
        switch cell.kind {
        case .photo: return .image
        case .view: return output(ofReference: cell.input ?? "photo.image")
        case .step:
            guard let effect = cell.effect.flatMap(EffectCatalog.effect) else { return .unknown }
            return effect.description.output == .image ? .image : .plane
        case .formula:
            guard let text = cell.formula, let parsed = try? FormulaParser.parsed(text),
                  let type = try? FormulaTypeCheck.check(parsed, in: self) else { return .unknown }
            switch type.channels {
            case .one: return .plane
            case .three: return .image
            case .unknown: return .unknown
            }
        case .note, .unsupported: return .nothing(kind: cell.kindName)
        }
    }

    /// What a reference (a plane or a cell above) gives.
    func output(ofReference reference: String) -> Output {
        if let plane = PhotoReferences.planeName(reference) { return plane == "image" ? .image : .plane }
        return index[reference] ?? .unknown
    }
}

/// The names and types of a parsed formula, checked against what the cells above give: every name a plane or a
/// renderable cell above, every channel taken of an image, every function given what it takes. Runs over the
/// postfix steps with a stack (no recursion).
enum FormulaTypeCheck {
    /// The type of the formula's value, or the first name or type error.
    static func check(_ parsed: ParsedFormula, in scope: FormulaScope) throws(FormulaError) -> FormulaType {
        try check(parsed, names: try nameTypes(parsed, in: scope))
    }

    /// Each name's type, or an error at the first name that is neither a plane nor a cell above with a picture.
    static func nameTypes(_ parsed: ParsedFormula, in scope: FormulaScope) throws(FormulaError) -> [FormulaType] {
        var types = [FormulaType]()
        for name in parsed.names {
            switch name.target {
            case .plane(let plane): types.append(plane.type)
            case .cell(let id):
                switch scope.output(of: id) {
                case .image: types.append(.image)
                case .plane: types.append(.mask)
                case .unknown: types.append(.unknown)
                case .nothing(let kind):
                    throw FormulaError(position: name.position, message: "“\(id)” is a \(kind) cell and has no picture to read")
                case nil:
                    throw FormulaError(position: name.position, message: unknownName(id, scope))
                }
            }
        }
        return types
    }

    static func unknownName(_ id: String, _ scope: FormulaScope) -> String {
        if id == scope.current {
            return "“\(id)” is this formula's own cell; a formula reads the photo's planes and the cells above it"
        }
        if scope.below.contains(id) {
            return "“\(id)” is a cell below this one; a formula reads only the photo's planes and the cells above it"
        }
        if let function = FormulaFunction(rawValue: id) {
            return "“\(id)” is a function: write \(function.signature)"
        }
        let cells = scope.cells.filter { if case .nothing = $0.output { return false } else { return true } }.map(\.id)
            .filter { FormulaParserNames.isName($0) }
        var message = "unknown name “\(id)”"
        let candidates = FormulaPlane.allCases.map(\.rawValue) + cells
        if let near = candidates.min(by: { distance($0, id) < distance($1, id) }), distance(near, id) <= max(1, id.count / 3) {
            message += " (did you mean “\(near)”?)"
        }
        message += "; planes: \(FormulaPlane.list)"
        let shown = cells.prefix(20).joined(separator: ", ") + (cells.count > 20 ? ", …" : "")
        message += cells.isEmpty ? "; no cell above can be named" : "; cells above: \(shown)"
        return message
    }

    /// Levenshtein distance, for "did you mean".
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The type of the value, given each name's type.
    static func check(_ parsed: ParsedFormula, names: [FormulaType]) throws(FormulaError) -> FormulaType {
        var stack = [FormulaType]()
        for node in parsed.nodes {
            let args = Array(stack.suffix(node.arity))
            stack.removeLast(node.arity)
            let result: FormulaType
            switch node.kind {
            case .number, .slider: result = .number
            case .name(let i): result = names[i]
            case .negate, .binary, .select: result = .joined(args)
            case .channel(let c):
                if args[0].channels == .one {
                    throw FormulaError(position: node.position, message: "“.\(["r", "g", "b"][c])” picks a channel of an image, "
                        + "but this is \(args[0].noun)")
                }
                result = FormulaType(channels: .one, uniform: args[0].uniform)
            case .call(let function, _):
                result = try call(function, args, at: node.position)
            }
            stack.append(result)
        }
        return stack.last ?? .number
    }

    private static func call(_ function: FormulaFunction, _ args: [FormulaType], at position: Int) throws(FormulaError) -> FormulaType {
        switch function {
        case .luma:
            if args[0].channels == .one {
                throw FormulaError(position: position, message: "luma(image) takes an image, but this is \(args[0].noun): it is grey already")
            }
            return FormulaType(channels: .one, uniform: args[0].uniform)
        case .gray:
            if args[0].channels == .three {
                throw FormulaError(position: position, message: "gray(x) makes an image of a mask or a number, but this is "
                    + "\(args[0].noun) already (luma(x) makes a mask of an image)")
            }
            return FormulaType(channels: .three, uniform: args[0].uniform)
        case .rgb:
            for (k, arg) in args.enumerated() where arg.channels == .three {
                throw FormulaError(position: position, message: "rgb(r, g, b) takes masks or numbers, but argument \(k + 1) is "
                    + "\(arg.noun) (pick a channel with .\(["r", "g", "b"][k]))")
            }
            return FormulaType(channels: .three, uniform: args.allSatisfy(\.uniform))
        default:
            return .joined(args)
        }
    }
}

/// What can be written as a name in a formula.
enum FormulaParserNames {
    /// Letters, digits and _, not starting with a digit: cells with other ids cannot be named in a formula.
    static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
    }
}
