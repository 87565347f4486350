/// Runs a `FormulaProgram` over rows: `chunk` pixels at a time, each instruction one tight loop over scratch
/// rows (a 1024-pixel image row is 12 KB, so a program's rows stay in L2), so the compiler vectorises every
/// operation and no interpreter dispatch happens per pixel. Chunks were 256 pixels: at a 736-pixel preview
/// that dispatched each of the makeup formula's 19 instructions three times a row, and 1024 took its chain
/// from 5.4 to 4.4–4.9 ms (single thread).
///
/// The program's registers are reused as soon as a value is consumed, often by the instruction consuming it
/// (`r2 = r2 / 1.055`). A loop whose output overlaps its input does not vectorise (the compiler's overlap check
/// sends it down the scalar path), so each value gets a scratch row of its own that no instruction both reads
/// and writes: rows are handed out again only once every reader of their value has run.
struct FormulaKernels: Sendable {
    /// Pixels run through the program at once.
    static let chunk = 1024

    let program: FormulaProgram
    /// Per instruction and operand: the scratch row it reads (a value's row, or a constant written out as a
    /// row where the loop needs one), nil for an input or a number read as such.
    private let operandRows: [[Int?]]
    /// Per instruction: the scratch row it writes.
    private let resultRows: [Int]
    /// The row holding the program's output when it is a register.
    private let outputRow: Int?
    /// Scratch rows for values; constant rows follow them.
    private let valueRows: Int
    /// What each constant row repeats: one number, or a colour's three.
    private let patterns: [[Float]]
    /// Per instruction: for a costly function of one row (a power by a number, exp, log), its values at the 256
    /// bytes' values, used for a chunk whose operand holds only such values (the channels of the photo's bytes
    /// and their minima and maxima do).
    private let byteTables: [[Float]?]
    /// Per instruction: for a power by a number, its `PowerTable`, used for rows of other values.
    private let powerTables: [PowerTable?]
    /// Exponents the power loop computes itself, with neither table: 1 (a copy) and 0.5 (a square root).
    private static let exponentsWithOwnLoop: Set<Float> = [1, 0.5]
    /// The whole program as a table, when it is one costly function of its one input's samples. Made when
    /// first asked for, not with the kernels: a formula composed into the one below it never runs, and a
    /// chain of 48 such cells once spent 25 s making tables nobody used, before rendering anything.
    var functionTable: SampleFunctionTable? { madeTable.value { Self.functionTable(for: self) } }
    private let madeTable = MadeOnce<SampleFunctionTable?>()

    init(_ program: FormulaProgram) {
        self.program = program
        let instructions = program.instructions
        // Which instruction wrote the value each register operand reads, and the last instruction reading it
        // (the output counts as a read after the last instruction).
        var writer = [Int: Int]()
        var producers = [[Int?]]()
        var lastUse = [Int](repeating: -1, count: instructions.count)
        for (k, instruction) in instructions.enumerated() {
            producers.append(instruction.operands.map { operand -> Int? in
                guard case .register(let r) = operand, let p = writer[r] else { return nil }
                lastUse[p] = k
                return p
            })
            writer[instruction.result] = k
        }
        var outputProducer: Int?
        if case .register(let r) = program.output, let p = writer[r] {
            outputProducer = p
            lastUse[p] = instructions.count
        }
        // Rows: a value's row is free again after its last reader, never during it.
        var rowOf = [Int](repeating: 0, count: instructions.count)
        var free = [Int]()
        var rowCount = 0
        var released = [[Int]](repeating: [], count: instructions.count + 1)
        for k in instructions.indices {
            let row = free.popLast() ?? { rowCount += 1; return rowCount - 1 }()
            rowOf[k] = row
            // A value nobody reads is free after its own instruction.
            released[max(lastUse[k], k)].append(row)
            free.append(contentsOf: released[k])
        }
        var operandRows = [[Int?]]()
        var patterns = [[Float]]()
        for (k, instruction) in instructions.enumerated() {
            let op = instruction.operation
            let operands = instruction.operands
            var row = [Int?]()
            for (j, operand) in operands.enumerated() {
                switch operand {
                case .input: row.append(nil)
                case .register: row.append(producers[k][j].map { rowOf[$0] })
                case .color(let r, let g, let b):
                    patterns.append([r, g, b])
                    row.append(rowCount + patterns.count - 1)
                case .constant(let v):
                    let needsRow: Bool
                    switch op {
                    case .clamp:
                        // clamp(x, number, number) has its own loop.
                        let bounds = operands.dropFirst().allSatisfy { if case .constant = $0 { return true } else { return false } }
                        needsRow = !(j > 0 && bounds)
                    case .select, .mix, .smoothstep, .rgb: needsRow = true
                    default: needsRow = false
                    }
                    if needsRow {
                        patterns.append([v])
                        row.append(rowCount + patterns.count - 1)
                    } else {
                        row.append(nil)
                    }
                }
            }
            operandRows.append(row)
        }
        self.operandRows = operandRows
        self.resultRows = rowOf
        self.outputRow = outputProducer.map { rowOf[$0] }
        self.valueRows = rowCount
        self.patterns = patterns
        self.byteTables = instructions.map { instruction in
            let operands = instruction.operands
            let value: ((Float) -> Float)?
            switch (instruction.operation, operands.first, operands.last) {
            case (.power, .input?, .constant(let y)?), (.power, .register?, .constant(let y)?):
                value = Self.exponentsWithOwnLoop.contains(y) ? nil : { FormulaMath.power($0, y) }
            case (.exp, .input?, _), (.exp, .register?, _): value = FormulaMath.exponential
            case (.log, .input?, _), (.log, .register?, _): value = FormulaMath.logarithm
            default: value = nil
            }
            return value.map { f in (0..<256).map { f(Float($0) * ByteTable.scale) } }
        }
        self.powerTables = instructions.map { instruction in
            guard instruction.operation == .power, case .constant(let y)? = instruction.operands.last,
                  !Self.exponentsWithOwnLoop.contains(y) else { return nil }
            if case .constant? = instruction.operands.first { return nil }
            return PowerTable(exponent: y)
        }
    }

    /// Tables made recently, by program: a recipe is rebuilt for every frame, and a table costs 16k runs of
    /// the program (a slider that moves a constant makes a new one each step; 128 tables are at most 8 MB,
    /// enough for a page previewing every cell of a 64-cell chain without making them again each frame).
    private static let madeTables = Locked([String: SampleFunctionTable]())

    /// The program's table, when it is one function of one input's samples and costs more than a lookup: two
    /// operations or more with a power, an exponential or a logarithm among them, or four or more.
    private static func functionTable(for kernels: FormulaKernels) -> SampleFunctionTable? {
        let program = kernels.program
        guard program.isOneSampleFunction else { return nil }
        let costly = program.instructions.contains { instruction in
            switch instruction.operation {
            case .power: return instruction.operands.last != .constant(1)
            case .exp, .log: return true
            default: return false
            }
        }
        // One operation alone runs as fast from its own loop (a power from its `PowerTable`).
        guard program.instructions.count >= 2, costly || program.instructions.count >= 4 else { return nil }
        let key = program.description
        if let made = madeTables.withLock({ $0[key] }) { return made }
        let width = program.inputs[0].channels
        let table = SampleFunctionTable(width: width) { x, n, out in
            kernels.runProgram(inputs: [x], inputChannels: [width], output: out, outputChannels: width, count: n)
        }
        madeTables.withLock { tables in
            if tables.count >= 128 { tables.removeAll() }
            tables[key] = table
        }
        return table
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
        guard let table = functionTable else {
            runProgram(inputs: inputs, inputChannels: inputChannels, output: output, outputChannels: outputChannels, count: count)
            return
        }
        var missed = [Int]()
        table.apply(inputs[0], pixels: count, into: output, missed: &missed)
        guard !missed.isEmpty else { return }
        // The pixels the table does not serve, gathered, run through the program, and put back.
        let width = table.width
        let gathered = UnsafeMutablePointer<Float>.allocate(capacity: 2 * missed.count * width)
        defer { gathered.deallocate() }
        let results = gathered + missed.count * width
        for (j, i) in missed.enumerated() {
            for c in 0..<width { gathered[j * width + c] = inputs[0][i * width + c] }
        }
        runProgram(inputs: [UnsafePointer(gathered)], inputChannels: [width], output: results, outputChannels: width,
                   count: missed.count)
        for (j, i) in missed.enumerated() {
            for c in 0..<width { output[i * width + c] = results[j * width + c] }
        }
    }

    /// `run` without the table: every instruction over chunks of scratch rows.
    func runProgram(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                    outputChannels: Int, count: Int) {
        guard count > 0 else { return }
        let chunk = min(Self.chunk, count)
        let stride = chunk * 3
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(1, (valueRows + patterns.count) * stride))
        defer { scratch.deallocate() }
        for (s, pattern) in patterns.enumerated() {
            let row = scratch + (valueRows + s) * stride
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
                    if let row = operandRows[k][j] { return .row(UnsafePointer(scratch + row * stride)) }
                    switch instruction.operands[j] {
                    case .input(let i): return .row(inputs[i] + start * inputChannels[i])
                    case .constant(let v): return .number(v)
                    case .register, .color: preconditionFailure("a register or colour operand always has a row")
                    }
                }
                let direct = k == last && outputRow == resultRows[k] && width == outputChannels
                let destination = direct ? output + start * outputChannels : scratch + resultRows[k] * stride
                let arity = instruction.operation.arity
                if let table = byteTables[k], case .row(let x) = arg(0),
                   ByteTable.lookUp(x, count: n * width, table: table, into: destination) {
                    // Every sample was a byte's value: looked up.
                } else if let table = powerTables[k], case .row(let x) = arg(0) {
                    table.apply(x, count: n * width, into: destination)
                } else {
                    Self.execute(instruction.operation, n, width, destination, arg(0), arity > 1 ? arg(1) : .number(0),
                                 arity > 2 ? arg(2) : .number(0))
                }
                wroteOutput = direct
            }
            if !wroteOutput {
                let to = output + start * outputChannels, samples = n * outputChannels
                switch program.output {
                case .register: to.update(from: scratch + (outputRow ?? 0) * stride, count: samples)
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
        case .power:
            // powf(x, 1) is x for every Float (checked against glibc 2.36's powf on all 2^32 of them), so that
            // one is a copy with powf's bits.
            if case .number(1) = b {
                map1(e, d, a) { $0 }
            } else if case .number(0.5) = b {
                // A square root is one vector instruction for eight samples, and the correctly rounded x^0.5, which
                // powf misses by an ulp at times (as a table lookup may): the built-in gamma 0.5 takes it too.
                map1(e, d, a, M.squareRootPower)
            } else {
                map2(e, d, a, b, M.power)
            }
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

/// A value made by the first caller that asks for it, under a lock (others wait), then kept.
final class MadeOnce<Value: Sendable>: Sendable {
    private let made = Locked<Value?>(nil)

    func value(_ make: () -> Value) -> Value {
        made.withLock { kept in
            if let kept { return kept }
            let value = make()
            kept = value
            return value
        }
    }
}
