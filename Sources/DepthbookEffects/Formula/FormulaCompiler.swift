import DepthbookDocument
import DepthbookEngine

/// Turns a parsed, type-checked formula into an engine program, given what each name reads and each slider's
/// value. Everything uniform (numbers, sliders, `subject`, colours made of them) is folded into constants with
/// the engine's own maths; planes meeting images are spread to three channels; registers are reused as soon
/// as their value is consumed. Runs over the postfix steps with a stack (no recursion).
struct FormulaCompiler {
    /// What a name reads.
    enum Binding: Sendable {
        /// The filter's input `index`; a depth plane is first normalised to 0…1 (`low`, `scale`, `hole`).
        case input(Int, normalize: (low: Float, scale: Float, hole: Float)?)
        /// One number for the whole picture (`subject`).
        case uniform(Float)
    }

    /// A value on the compiler's stack.
    private enum Value {
        /// 1 number, or a colour's 3.
        case uniform([Float])
        /// A row: its operand, channels, and whether it is a register to free once read.
        case row(FormulaProgram.Operand, channels: Int, temporary: Bool)

        var channels: Int {
            switch self {
            case .uniform(let v): return v.count
            case .row(_, let c, _): return c
            }
        }
    }

    private var instructions: [FormulaProgram.Instruction] = []
    private var free: [Int] = []
    private var registers = 0
    /// Normalised inputs already computed, by name index (kept for the whole program).
    private var normalized: [Int: Int] = [:]
    /// Channels of inputs already picked, by input and channel (kept for the whole program): `image.r` read twice,
    /// as in a maximum and a luma, is picked once.
    private var picked: [[Int]: Int] = [:]

    /// The program computing `parsed` over inputs of `inputKinds`. Type errors were found before
    /// (`FormulaTypeCheck`); the ones left here (a cell's kind known only now) carry their position too.
    static func compile(_ parsed: ParsedFormula, bindings: [Binding], inputKinds: [PixelKind],
                        sliders: [Float]) throws(FormulaError) -> FormulaProgram {
        var compiler = FormulaCompiler()
        var stack = [Value]()
        for node in parsed.nodes {
            let args = Array(stack.suffix(node.arity))
            stack.removeLast(node.arity)
            stack.append(try compiler.step(node, args, bindings: bindings, inputKinds: inputKinds, sliders: sliders))
        }
        let output: FormulaProgram.Operand
        switch stack.last ?? .uniform([0]) {
        case .uniform(let v): output = v.count == 3 ? .color(v[0], v[1], v[2]) : .constant(v[0])
        case .row(let operand, _, _): output = operand
        }
        do {
            return try FormulaProgram(inputs: inputKinds, instructions: compiler.instructions, output: output)
        } catch {
            // The checks above make a well-formed program; this would be a bug, said plainly.
            throw FormulaError(position: 0, message: "the formula compiled to a program the engine refused (\(error))")
        }
    }

    private mutating func step(_ node: FormulaNode, _ args: [Value], bindings: [Binding], inputKinds: [PixelKind],
                               sliders: [Float]) throws(FormulaError) -> Value {
        switch node.kind {
        case .number(let v): return .uniform([v])
        case .slider(let i): return .uniform([sliders[i]])
        case .name(let i):
            switch bindings[i] {
            case .uniform(let v): return .uniform([v])
            case .input(let input, let normalize):
                let channels = inputKinds[input].channels
                guard let normalize else { return .row(.input(input), channels: channels, temporary: false) }
                if let register = normalized[i] { return .row(.register(register), channels: 1, temporary: false) }
                let register = allocate()
                instructions.append(.init(.normalize(low: normalize.low, scale: normalize.scale, hole: normalize.hole),
                                          [.input(input)], result: register))
                normalized[i] = register
                return .row(.register(register), channels: 1, temporary: false)
            }
        case .negate: return elementwise(.negate, args)
        case .binary(let op): return elementwise(op, args)
        case .select: return elementwise(.select, args)
        case .channel(let c):
            switch args[0] {
            case .uniform(let v):
                guard v.count == 3 else { throw typeError(node, "“.\(["r", "g", "b"][c])” picks a channel of an image, but this is a number") }
                return .uniform([v[c]])
            case .row(let operand, let channels, _):
                guard channels == 3 else { throw typeError(node, "“.\(["r", "g", "b"][c])” picks a channel of an image, but this is a mask") }
                guard case .input(let input) = operand else { return shaped(.channel(c), args, channels: 1) }
                if let register = picked[[input, c]] { return .row(.register(register), channels: 1, temporary: false) }
                let register = allocate()
                instructions.append(.init(.channel(c), [operand], result: register))
                picked[[input, c]] = register
                return .row(.register(register), channels: 1, temporary: false)
            }
        case .call(let function, _):
            return try call(function, args, node)
        }
    }

    private func typeError(_ node: FormulaNode, _ message: String) -> FormulaError {
        FormulaError(position: node.position, message: message)
    }

    private mutating func call(_ function: FormulaFunction, _ args: [Value], _ node: FormulaNode) throws(FormulaError) -> Value {
        switch function {
        case .luma:
            guard args[0].channels == 3 else { throw typeError(node, "luma(image) takes an image, but this is a mask: it is grey already") }
            if case .uniform(let v) = args[0] { return .uniform([FormulaMath.luma(v[0], v[1], v[2])]) }
            return shaped(.luma, args, channels: 1)
        case .gray:
            guard args[0].channels == 1 else { throw typeError(node, "gray(x) makes an image of a mask or a number, but this is an image already") }
            if case .uniform(let v) = args[0] { return .uniform([v[0], v[0], v[0]]) }
            return shaped(.spread, args, channels: 3)
        case .rgb:
            guard args.allSatisfy({ $0.channels == 1 }) else { throw typeError(node, "rgb(r, g, b) takes masks or numbers, not images") }
            let uniforms = args.compactMap { if case .uniform(let v) = $0 { return v[0] } else { return nil } }
            if uniforms.count == 3 { return .uniform(uniforms) }
            return shaped(.rgb, args, channels: 3)
        case .min, .max:
            // min(a, b, c, …) = min(min(a, b), c)…
            var value = args[0]
            for next in args.dropFirst() { value = elementwise(function.operation!, [value, next]) }
            return value
        default:
            return elementwise(function.operation!, args)
        }
    }

    // MARK: Emitting

    private mutating func allocate() -> Int {
        if let register = free.popLast() { return register }
        registers += 1
        return registers - 1
    }

    private mutating func release(_ values: [Value]) {
        for case .row(.register(let r), _, true) in values { free.append(r) }
    }

    /// An element-wise operation: folded when every operand is uniform; planes spread when an image is involved.
    private mutating func elementwise(_ op: FormulaProgram.Operation, _ args: [Value]) -> Value {
        let channels = args.map(\.channels).max() ?? 1
        let uniforms = args.compactMap { if case .uniform(let v) = $0 { return v } else { return nil } }
        if uniforms.count == args.count {
            let values = (0..<channels).map { c in
                FormulaProgram.fold(op, uniforms.map { $0.count == 1 ? $0[0] : $0[c] }) ?? .nan
            }
            return .uniform(values)
        }
        if let same = Self.identity(op, args) { return same }
        var operands = [FormulaProgram.Operand]()
        var consumed = [Value]()
        for arg in args {
            switch arg {
            case .uniform(let v): operands.append(v.count == 3 ? .color(v[0], v[1], v[2]) : .constant(v[0]))
            case .row(let operand, let c, _):
                if c < channels {
                    // A plane meeting an image: the plane in all three channels.
                    let spread = shaped(.spread, [arg], channels: 3)
                    if case .row(let wide, _, _) = spread { operands.append(wide) }
                    consumed.append(spread)
                } else {
                    operands.append(operand)
                    consumed.append(arg)
                }
            }
        }
        // Element-wise results may overwrite an operand they read: free first, then allocate.
        release(consumed)
        let register = allocate()
        instructions.append(.init(op, operands, result: register))
        return .row(.register(register), channels: channels, temporary: true)
    }

    /// The row an operation leaves as it is, bit for bit: x^1 (`powf(x, 1)` is x for every float, checked against
    /// glibc 2.36), x·1 and 1·x. A slider at 1 (darken's power by default) then costs no pass.
    private static func identity(_ op: FormulaProgram.Operation, _ args: [Value]) -> Value? {
        func isOne(_ value: Value) -> Bool { if case .uniform(let v) = value { return v.allSatisfy { $0 == 1 } } else { return false } }
        let kept: Value
        switch op {
        case .power where isOne(args[1]): kept = args[0]
        case .multiply where isOne(args[1]): kept = args[0]
        case .multiply where isOne(args[0]): kept = args[1]
        default: return nil
        }
        // A plane times an all-ones colour is an image: not the plane as it is.
        guard case .row = kept, kept.channels == args.map(\.channels).max() else { return nil }
        return kept
    }

    /// An operation that changes the number of channels: its result never shares a register with an operand.
    private mutating func shaped(_ op: FormulaProgram.Operation, _ args: [Value], channels: Int) -> Value {
        let operands = args.map { arg -> FormulaProgram.Operand in
            switch arg {
            case .uniform(let v): return .constant(v[0])
            case .row(let operand, _, _): return operand
            }
        }
        let register = allocate()
        instructions.append(.init(op, operands, result: register))
        release(args)
        return .row(.register(register), channels: channels, temporary: true)
    }
}
