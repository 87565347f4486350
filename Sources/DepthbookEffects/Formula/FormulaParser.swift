import DepthbookDocument
import DepthbookEngine
import DepthbookProtocol

/// One step of a parsed formula, in postfix order (operands before what combines them), with the offset a
/// message about it points at.
struct FormulaNode: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Float)
        /// The slider at this index of `ParsedFormula.sliders`.
        case slider(Int)
        /// The name at this index of `ParsedFormula.names`.
        case name(Int)
        case negate
        /// + - * / ^ and the comparisons.
        case binary(FormulaProgram.Operation)
        /// A function and how many arguments it was given.
        case call(FormulaFunction, Int)
        case channel(Int)
        /// c ? a : b
        case select
    }

    let kind: Kind
    let position: Int

    /// How many values it takes from the stack.
    var arity: Int {
        switch kind {
        case .number, .slider, .name: return 0
        case .negate, .channel: return 1
        case .binary: return 2
        case .call(_, let count): return count
        case .select: return 3
        }
    }
}

/// A name a formula uses: a plane of the photo, or (anything else) a cell above it.
struct FormulaName: Sendable, Equatable {
    enum Target: Sendable, Equatable {
        case plane(FormulaPlane)
        case cell(String)
    }

    let text: String
    let target: Target
    /// Where it is first used.
    let position: Int
}

/// A formula as parsed: its steps in postfix order, the names and sliders it declares. It does not depend on
/// the notebook (names other than planes are taken as cells, and checked against the notebook separately),
/// so one parse serves every render of the same text.
struct ParsedFormula: Sendable, Equatable {
    let text: String
    let nodes: [FormulaNode]
    let names: [FormulaName]
    let sliders: [FormulaSlider]

    /// The notebook references it reads, in order of first use, each once (`photo.disparity`, `mask`).
    var references: [String] {
        var seen = Set<String>(), all = [String]()
        for name in names {
            let reference: String
            switch name.target {
            case .plane(let plane): reference = plane.reference
            case .cell(let id): reference = id
            }
            if seen.insert(reference).inserted { all.append(reference) }
        }
        return all
    }
}

/// Recursive descent over the grammar of docs/formulas.md, emitting postfix steps. Every recursion goes one
/// level deeper into parentheses, a call's arguments or the "then" branch of ?: and is refused past
/// `maxFormulaNesting`; chains (a + b + …, -−x, a ^ b ^ …, a ? b : c ? d : …) are loops. So the parser's
/// stack is bounded whatever the text, and the length is checked before any of it is read.
struct FormulaParser {
    private let tokens: [FormulaToken]
    private let limits: Notebook.Limits
    private var at = 0
    private var nodes: [FormulaNode] = []
    private var names: [FormulaName] = []
    private var sliders: [FormulaSlider] = []

    private init(tokens: [FormulaToken], limits: Notebook.Limits) {
        self.tokens = tokens
        self.limits = limits
    }

    /// Parses `text`, or says where and why not.
    static func parse(_ text: String, limits: Notebook.Limits = Notebook.limits) throws(FormulaError) -> ParsedFormula {
        let length = text.utf8.count
        guard length <= limits.maxFormulaLength else {
            throw FormulaError(position: limits.maxFormulaLength,
                               message: "a formula is at most \(limits.maxFormulaLength) characters; this one has \(length). "
                                   + "Split it into several formula cells, each reading the one before")
        }
        let tokens = try FormulaLexer.tokens(text)
        if tokens.count == 1 {
            throw FormulaError(position: 0, message: "the formula is empty: write an expression of the photo's planes, e.g. image * 0.5")
        }
        var parser = FormulaParser(tokens: tokens, limits: limits)
        try parser.conditional(depth: 0)
        let token = parser.tokens[parser.at]
        if token.kind != .end {
            let message: String
            if token.kind == .symbol(.close) {
                message = "unexpected “)”: there is no “(” for it to close"
            } else {
                message = "expected an operator (+ - * / ^, a comparison or ?) before \(token.shown)"
            }
            throw FormulaError(position: token.position, message: message)
        }
        return ParsedFormula(text: text, nodes: parser.nodes, names: parser.names, sliders: parser.sliders)
    }

    /// Parses kept by text: the recipe is rebuilt for every render, and a formula changes far less often.
    private static let memo = Locked([String: Result<ParsedFormula, FormulaError>]())

    /// `parse` with the result kept for the next render of the same text (the default limits only).
    static func parsed(_ text: String) throws(FormulaError) -> ParsedFormula {
        if let known = memo.withLock({ $0[text] }) { return try known.get() }
        let result: Result<ParsedFormula, FormulaError>
        do { result = .success(try parse(text)) } catch { result = .failure(error) }
        memo.withLock { m in
            if m.count >= 64 { m.removeAll() }
            m[text] = result
        }
        return try result.get()
    }

    // MARK: Grammar

    private var token: FormulaToken { tokens[at] }

    private func isSymbol(_ symbol: FormulaToken.Symbol) -> Bool { token.kind == .symbol(symbol) }

    private mutating func advance() { if at < tokens.count - 1 { at += 1 } }

    private mutating func expect(_ symbol: FormulaToken.Symbol, _ message: String) throws(FormulaError) {
        guard isSymbol(symbol) else { throw FormulaError(position: token.position, message: "\(message), found \(token.shown)") }
        advance()
    }

    private mutating func emit(_ kind: FormulaNode.Kind, at position: Int) throws(FormulaError) {
        guard nodes.count < limits.maxFormulaNodes else {
            throw FormulaError(position: position, message: "the formula has more than \(limits.maxFormulaNodes) parts "
                + "(numbers, names, operators, calls); split it into several formula cells, each reading the one before")
        }
        nodes.append(FormulaNode(kind: kind, position: position))
    }

    /// Going one level deeper at `position`, refused past the nesting limit.
    private func deeper(_ depth: Int, at position: Int) throws(FormulaError) -> Int {
        guard depth < limits.maxFormulaNesting else {
            throw FormulaError(position: position, message: "nested too deeply: at most \(limits.maxFormulaNesting) parentheses, "
                + "calls and ?: branches inside one another")
        }
        return depth + 1
    }

    /// conditional = comparison [ "?" conditional ":" conditional ]
    private mutating func conditional(depth: Int) throws(FormulaError) {
        var questions = [Int]()
        while true {
            try comparison(depth: depth)
            guard isSymbol(.question) else { break }
            let question = token.position
            advance()
            try conditional(depth: try deeper(depth, at: question))
            try expect(.colon, "expected “:” and the value where the condition is false (condition ? a : b)")
            questions.append(question)
        }
        for question in questions.reversed() { try emit(.select, at: question) }
    }

    private static let comparisons: [FormulaToken.Symbol: FormulaProgram.Operation] = [
        .less: .less, .lessEqual: .lessOrEqual, .greater: .greater, .greaterEqual: .greaterOrEqual, .equal: .equal, .notEqual: .notEqual,
    ]

    /// comparison = sum [ ("<" | "<=" | ">" | ">=" | "==" | "!=") sum ]
    private mutating func comparison(depth: Int) throws(FormulaError) {
        try sum(depth: depth)
        guard case .symbol(let symbol) = token.kind, let op = Self.comparisons[symbol] else { return }
        let position = token.position
        advance()
        try sum(depth: depth)
        try emit(.binary(op), at: position)
        if case .symbol(let next) = token.kind, Self.comparisons[next] != nil {
            throw FormulaError(position: token.position, message: "comparisons do not chain: for a < b < c write (a < b) * (b < c)")
        }
    }

    /// sum = product { ("+" | "-") product }
    private mutating func sum(depth: Int) throws(FormulaError) {
        try product(depth: depth)
        while isSymbol(.plus) || isSymbol(.minus) {
            let op: FormulaProgram.Operation = isSymbol(.plus) ? .add : .subtract
            let position = token.position
            advance()
            try product(depth: depth)
            try emit(.binary(op), at: position)
        }
    }

    /// product = unary { ("*" | "/") unary }
    private mutating func product(depth: Int) throws(FormulaError) {
        try unary(depth: depth)
        while isSymbol(.star) || isSymbol(.slash) {
            let op: FormulaProgram.Operation = isSymbol(.star) ? .multiply : .divide
            let position = token.position
            advance()
            try unary(depth: depth)
            try emit(.binary(op), at: position)
        }
    }

    /// The signs before an operand: the offsets of its minus signs (a plus changes nothing).
    private mutating func signs() -> [Int] {
        var minuses = [Int]()
        while isSymbol(.minus) || isSymbol(.plus) {
            if isSymbol(.minus) { minuses.append(token.position) }
            advance()
        }
        return minuses
    }

    /// unary = { "-" | "+" } power
    private mutating func unary(depth: Int) throws(FormulaError) {
        let minuses = signs()
        try power(depth: depth)
        for minus in minuses.reversed() { try emit(.negate, at: minus) }
    }

    /// power = postfix { "^" { "-" | "+" } postfix }, right-associative: a ^ -b ^ c is a ^ (-(b ^ c)).
    private mutating func power(depth: Int) throws(FormulaError) {
        try postfix(depth: depth)
        var carets = [(position: Int, minuses: [Int])]()
        while isSymbol(.caret) {
            let position = token.position
            advance()
            let minuses = signs()
            try postfix(depth: depth)
            carets.append((position, minuses))
        }
        // The operands are on the stack; combine from the right, each operand's signs applying to all on its right.
        for caret in carets.reversed() {
            for minus in caret.minuses.reversed() { try emit(.negate, at: minus) }
            try emit(.binary(.power), at: caret.position)
        }
    }

    /// postfix = primary { "." ("r" | "g" | "b") }
    private mutating func postfix(depth: Int) throws(FormulaError) {
        try primary(depth: depth)
        while isSymbol(.dot) {
            let position = token.position
            advance()
            guard case .name(let name) = token.kind, let channel = ["r", "g", "b"].firstIndex(of: name) else {
                throw FormulaError(position: token.position, message: "after “.” write r, g or b (a channel of an image), found \(token.shown)")
            }
            advance()
            try emit(.channel(channel), at: position)
        }
    }

    /// primary = number | name | function "(" arguments ")" | slider | "(" conditional ")"
    private mutating func primary(depth: Int) throws(FormulaError) {
        let start = token
        switch start.kind {
        case .number(let value):
            advance()
            try emit(.number(Float(value)), at: start.position)
        case .name(let name):
            advance()
            if isSymbol(.open) {
                try call(name, at: start.position, depth: depth)
            } else {
                try emit(.name(nameIndex(name, at: start.position)), at: start.position)
            }
        case .symbol(.dollar):
            try slider(depth: depth)
        case .symbol(.open):
            advance()
            try conditional(depth: try deeper(depth, at: start.position))
            try expect(.close, "expected “)” to close the “(” at offset \(start.position)")
        case .end:
            throw FormulaError(position: start.position, message: "the formula ends where a value is expected")
        case .symbol(let symbol):
            throw FormulaError(position: start.position, message: "expected a value (a number, a plane, a cell, a function or a "
                + "$slider), found “\(symbol.rawValue)”")
        }
    }

    private mutating func nameIndex(_ text: String, at position: Int) -> Int {
        if let known = names.firstIndex(where: { $0.text == text }) { return known }
        let target: FormulaName.Target = FormulaPlane(rawValue: text).map { .plane($0) } ?? .cell(text)
        names.append(FormulaName(text: text, target: target, position: position))
        return names.count - 1
    }

    private mutating func call(_ name: String, at position: Int, depth: Int) throws(FormulaError) {
        guard let function = FormulaFunction(rawValue: name) else {
            throw FormulaError(position: position, message: "unknown function “\(name)”; functions: \(FormulaFunction.list)")
        }
        let open = token.position
        advance()
        let inner = try deeper(depth, at: open)
        var count = 0
        if !isSymbol(.close) {
            while true {
                try conditional(depth: inner)
                count += 1
                guard isSymbol(.comma) else { break }
                advance()
            }
        }
        try expect(.close, "expected “,” or “)” in the arguments of \(function.signature)")
        guard function.arity.contains(count) else {
            let wanted = function.arity.upperBound == Int.max ? "at least \(function.arity.lowerBound)"
                : "\(function.arity.lowerBound)"
            throw FormulaError(position: position, message: "\(function.signature) takes \(wanted) argument\(function.arity.lowerBound == 1 ? "" : "s"), not \(count)")
        }
        try emit(.call(function, count), at: position)
    }

    /// slider = "$" name [ "(" signed ".." signed "=" signed ")" ]: declared once, with its range and default, then
    /// used by name.
    private mutating func slider(depth: Int) throws(FormulaError) {
        let dollar = token.position
        advance()
        guard case .name(let name) = token.kind, token.position == dollar + 1 else {
            throw FormulaError(position: token.position, message: "write the slider's name right after “$”, as in $power(0..4 = 1)")
        }
        advance()
        let known = sliders.firstIndex { $0.name == name }
        if isSymbol(.open) {
            if known != nil {
                throw FormulaError(position: dollar, message: "slider $\(name) is declared twice; write $\(name) alone to use it again")
            }
            guard sliders.count < limits.maxParamsPerCell else {
                throw FormulaError(position: dollar, message: "a formula has at most \(limits.maxParamsPerCell) sliders")
            }
            advance()
            let low = try signedNumber("the slider's lowest value")
            try expect(.range, "expected “..” between the slider's lowest and highest values, as in $\(name)(0..4 = 1)")
            let high = try signedNumber("the slider's highest value")
            try expect(.assign, "expected “=” and the slider's starting value, as in $\(name)(0..4 = 1)")
            let value = try signedNumber("the slider's starting value")
            try expect(.close, "expected “)” to end the slider's declaration")
            guard low.value < high.value else {
                throw FormulaError(position: low.position, message: "the slider's lowest value (\(EffectParameter.shown(low.value))) "
                    + "must be below its highest (\(EffectParameter.shown(high.value)))")
            }
            guard FormulaSlider.isSteppable(min: low.value, max: high.value) else {
                throw FormulaError(position: low.position, message: "the slider's range \(EffectParameter.shown(low.value))..\(EffectParameter.shown(high.value)) "
                    + "is too narrow or too wide to step: its span must be finite and at least \(FormulaSlider.minimumSpan)")
            }
            guard (low.value...high.value).contains(value.value) else {
                throw FormulaError(position: value.position, message: "the starting value \(EffectParameter.shown(value.value)) "
                    + "is outside \(EffectParameter.shown(low.value))..\(EffectParameter.shown(high.value))")
            }
            sliders.append(FormulaSlider(name: name, min: low.value, max: high.value, defaultValue: value.value, position: dollar))
            try emit(.slider(sliders.count - 1), at: dollar)
        } else {
            guard let known else {
                throw FormulaError(position: dollar, message: "slider $\(name) is not declared: declare it where it is first used, "
                    + "as $\(name)(lowest..highest = start)")
            }
            try emit(.slider(known), at: dollar)
        }
    }

    /// An optionally signed number literal (a slider's bounds and start are numbers, not expressions).
    private mutating func signedNumber(_ what: String) throws(FormulaError) -> (value: Double, position: Int) {
        let position = token.position
        var sign = 1.0
        if isSymbol(.minus) || isSymbol(.plus) {
            if isSymbol(.minus) { sign = -1 }
            advance()
        }
        guard case .number(let value) = token.kind else {
            throw FormulaError(position: token.position, message: "expected a number for \(what), found \(token.shown)")
        }
        advance()
        return (sign * value, position)
    }
}
