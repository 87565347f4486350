/// Runs a `FormulaProgram` over rows: `chunk` pixels at a time, each instruction one tight loop over scratch
/// rows that stay in L1 (a 256-pixel image row is 3 KB), so the compiler vectorises every operation and no
/// interpreter dispatch happens per pixel.
struct FormulaKernels: Sendable {
    /// Pixels run through the program at once.
    static let chunk = 256

    let program: FormulaProgram
    /// Per instruction and operand: the constant row it reads (a number or colour written out once per call),
    /// where the loop needs a row rather than a number.
    private let slots: [[Int?]]
    /// What each constant row repeats: one number, or a colour's three.
    private let patterns: [[Float]]

    init(_ program: FormulaProgram) {
        self.program = program
        var slots = [[Int?]]()
        var patterns = [[Float]]()
        for instruction in program.instructions {
            let op = instruction.operation
            let operands = instruction.operands
            var row = [Int?]()
            for (j, operand) in operands.enumerated() {
                let needsRow: Bool
                switch operand {
                case .input, .register: needsRow = false
                case .color: needsRow = true
                case .constant:
                    switch op {
                    case .clamp:
                        // clamp(x, number, number) has its own loop.
                        let bounds = operands.dropFirst().allSatisfy { if case .constant = $0 { return true } else { return false } }
                        needsRow = !(j > 0 && bounds)
                    case .select, .mix, .smoothstep, .rgb: needsRow = true
                    default: needsRow = false
                    }
                }
                if needsRow {
                    switch operand {
                    case .constant(let v): patterns.append([v])
                    case let .color(r, g, b): patterns.append([r, g, b])
                    default: break
                    }
                    row.append(patterns.count - 1)
                } else {
                    row.append(nil)
                }
            }
            slots.append(row)
        }
        self.slots = slots
        self.patterns = patterns
    }

    /// A value as a loop reads it: a row of samples, or one number for all of them.
    enum Arg {
        case row(UnsafePointer<Float>)
        case number(Float)

        /// The row (constants a loop needs as rows were written out, so this always holds there).
        @inline(__always) var row: UnsafePointer<Float> {
            if case .row(let p) = self { return p }
            preconditionFailure("a formula operand that must be a row is a number")
        }
    }

    /// Computes `count` pixels: `inputs[i]` holds `count * inputChannels[i]` samples, `output` gets
    /// `count * outputChannels`.
    func run(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
             outputChannels: Int, count: Int) {
        guard count > 0 else { return }
        let chunk = min(Self.chunk, count)
        let stride = chunk * 3
        let registers = program.registerCount
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(1, (registers + patterns.count) * stride))
        defer { scratch.deallocate() }
        for (s, pattern) in patterns.enumerated() {
            let row = scratch + (registers + s) * stride
            if pattern.count == 1 {
                row.initialize(repeating: pattern[0], count: stride)
            } else {
                for i in 0..<stride { row[i] = pattern[i % 3] }
            }
        }
        let instructions = program.instructions, widths = program.widths
        let last = instructions.count - 1
        var start = 0
        while start < count {
            let n = min(chunk, count - start)
            var wroteOutput = false
            for k in instructions.indices {
                let instruction = instructions[k]
                let width = widths[k]
                func arg(_ j: Int) -> Arg {
                    if let slot = slots[k][j] { return .row(UnsafePointer(scratch + (registers + slot) * stride)) }
                    switch instruction.operands[j] {
                    case .input(let i): return .row(inputs[i] + start * inputChannels[i])
                    case .register(let r): return .row(UnsafePointer(scratch + r * stride))
                    case .constant(let v): return .number(v)
                    case .color: preconditionFailure("a colour operand always has a row")
                    }
                }
                let direct = k == last && program.output == .register(instruction.result) && width == outputChannels
                let destination = direct ? output + start * outputChannels : scratch + instruction.result * stride
                let arity = instruction.operation.arity
                Self.execute(instruction.operation, n, width, destination, arg(0), arity > 1 ? arg(1) : .number(0),
                             arity > 2 ? arg(2) : .number(0))
                wroteOutput = direct
            }
            if !wroteOutput {
                let to = output + start * outputChannels, samples = n * outputChannels
                switch program.output {
                case .register(let r): to.update(from: scratch + r * stride, count: samples)
                case .input(let i): to.update(from: inputs[i] + start * inputChannels[i], count: samples)
                case .constant(let v): to.update(repeating: v, count: samples)
                case let .color(r, g, b):
                    for i in 0..<n {
                        to[i * 3] = r
                        to[i * 3 + 1] = g
                        to[i * 3 + 2] = b
                    }
                }
            }
            start += n
        }
    }

    /// One instruction over `n` pixels of `width` samples.
    private static func execute(_ op: FormulaProgram.Operation, _ n: Int, _ width: Int, _ d: UnsafeMutablePointer<Float>,
                                _ a: Arg, _ b: Arg, _ c: Arg) {
        typealias M = FormulaMath
        let e = n * width
        switch op {
        case .negate: map1(e, d, a, M.negate)
        case .abs: map1(e, d, a, M.absolute)
        case .sqrt: map1(e, d, a, M.squareRoot)
        case .exp: map1(e, d, a, M.exponential)
        case .log: map1(e, d, a, M.logarithm)
        case .add: map2(e, d, a, b, M.add)
        case .subtract: map2(e, d, a, b, M.subtract)
        case .multiply: map2(e, d, a, b, M.multiply)
        case .divide: map2(e, d, a, b, M.divide)
        case .power: map2(e, d, a, b, M.power)
        case .minimum: map2(e, d, a, b, M.minimum)
        case .maximum: map2(e, d, a, b, M.maximum)
        case .less: map2(e, d, a, b, M.less)
        case .lessOrEqual: map2(e, d, a, b, M.lessOrEqual)
        case .greater: map2(e, d, a, b, M.greater)
        case .greaterOrEqual: map2(e, d, a, b, M.greaterOrEqual)
        case .equal: map2(e, d, a, b, M.equal)
        case .notEqual: map2(e, d, a, b, M.notEqual)
        case .step: map2(e, d, a, b, M.step)
        case .clamp:
            if case .number(let lo) = b, case .number(let hi) = c {
                let x = a.row
                for i in 0..<e { d[i] = M.clamp(x[i], lo, hi) }
            } else {
                map3(e, d, a.row, b.row, c.row, M.clamp)
            }
        case .select: map3(e, d, a.row, b.row, c.row, M.select)
        case .mix: map3(e, d, a.row, b.row, c.row, M.mix)
        case .smoothstep: map3(e, d, a.row, b.row, c.row, M.smoothstep)
        case .channel(let k):
            let x = a.row
            for i in 0..<n { d[i] = x[i &* 3 &+ k] }
        case .luma:
            let x = a.row
            for i in 0..<n { d[i] = M.luma(x[i &* 3], x[i &* 3 &+ 1], x[i &* 3 &+ 2]) }
        case .spread:
            let x = a.row
            for i in 0..<n {
                let v = x[i]
                d[i &* 3] = v
                d[i &* 3 &+ 1] = v
                d[i &* 3 &+ 2] = v
            }
        case .rgb:
            let r = a.row, g = b.row, bl = c.row
            for i in 0..<n {
                d[i &* 3] = r[i]
                d[i &* 3 &+ 1] = g[i]
                d[i &* 3 &+ 2] = bl[i]
            }
        case let .normalize(low, scale, hole):
            let x = a.row
            for i in 0..<n { d[i] = M.normalize(x[i], low: low, scale: scale, hole: hole) }
        }
    }

    @inline(__always)
    private static func map1(_ e: Int, _ d: UnsafeMutablePointer<Float>, _ a: Arg, _ f: (Float) -> Float) {
        switch a {
        case .row(let x): for i in 0..<e { d[i] = f(x[i]) }
        case .number(let v): d.update(repeating: f(v), count: e)
        }
    }

    @inline(__always)
    private static func map2(_ e: Int, _ d: UnsafeMutablePointer<Float>, _ a: Arg, _ b: Arg, _ f: (Float, Float) -> Float) {
        switch (a, b) {
        case let (.row(x), .row(y)): for i in 0..<e { d[i] = f(x[i], y[i]) }
        case let (.row(x), .number(v)): for i in 0..<e { d[i] = f(x[i], v) }
        case let (.number(v), .row(y)): for i in 0..<e { d[i] = f(v, y[i]) }
        case let (.number(v), .number(w)): d.update(repeating: f(v, w), count: e)
        }
    }

    @inline(__always)
    private static func map3(_ e: Int, _ d: UnsafeMutablePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                             _ c: UnsafePointer<Float>, _ f: (Float, Float, Float) -> Float) {
        for i in 0..<e { d[i] = f(a[i], b[i], c[i]) }
    }
}
