/// A compiled formula: a straight-line program (no loops, no branches) of per-sample operations over rows of
/// pixels. Each instruction reads inputs (the filter's input rows), registers (earlier results) or constants,
/// and writes one register; the program's value is `output`.
///
/// A value is a plane row (1 sample a pixel) or an image row (3 interleaved samples a pixel). Element-wise
/// operations take operands of their own width or constants (a number counts for every channel, a colour only
/// in an image operation); `spread` makes an image of a plane, `channel` and `luma` a plane of an image. The
/// program is checked when it is made, so a row kernel never reads a register nobody wrote or mixes widths.
public struct FormulaProgram: Sendable, Hashable, CustomStringConvertible {
    /// Where an instruction reads a value.
    public enum Operand: Sendable, Hashable, CustomStringConvertible {
        /// The filter's input `i` (its kind says the width).
        case input(Int)
        /// The result of an earlier instruction.
        case register(Int)
        /// The same number in every sample.
        case constant(Float)
        /// The same colour in every pixel (image operations only).
        case color(Float, Float, Float)

        public var description: String {
            switch self {
            case .input(let i): return "in\(i)"
            case .register(let r): return "r\(r)"
            case .constant(let v): return "\(v)"
            case let .color(r, g, b): return "rgb(\(r),\(g),\(b))"
            }
        }
    }

    /// What an instruction computes.
    public enum Operation: Sendable, Hashable, CustomStringConvertible {
        // Element-wise, one operand.
        case negate, abs, sqrt, exp, log
        // Element-wise, two operands.
        case add, subtract, multiply, divide, power, minimum, maximum
        case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual, step
        // Element-wise, three operands.
        case select, mix, clamp, smoothstep
        /// Image → plane: channel 0, 1 or 2.
        case channel(Int)
        /// Image → plane: Rec. 709 luma.
        case luma
        /// Plane → image: the plane in all three channels.
        case spread
        /// Three planes (or numbers) → image.
        case rgb
        /// Plane → plane: (x − low)·scale clamped to 0…1, holes (NaN) → `hole`.
        case normalize(low: Float, scale: Float, hole: Float)

        /// How many operands it takes.
        public var arity: Int {
            switch self {
            case .negate, .abs, .sqrt, .exp, .log, .channel, .luma, .spread, .normalize: return 1
            case .add, .subtract, .multiply, .divide, .power, .minimum, .maximum, .less, .lessOrEqual, .greater,
                 .greaterOrEqual, .equal, .notEqual, .step: return 2
            case .select, .mix, .clamp, .smoothstep, .rgb: return 3
            }
        }

        /// Whether every output sample depends only on the same sample of each operand.
        public var isElementwise: Bool {
            switch self {
            case .channel, .luma, .spread, .rgb, .normalize: return false
            default: return true
            }
        }

        public var description: String {
            switch self {
            case .negate: return "negate"
            case .abs: return "abs"
            case .sqrt: return "sqrt"
            case .exp: return "exp"
            case .log: return "log"
            case .add: return "add"
            case .subtract: return "subtract"
            case .multiply: return "multiply"
            case .divide: return "divide"
            case .power: return "power"
            case .minimum: return "minimum"
            case .maximum: return "maximum"
            case .less: return "less"
            case .lessOrEqual: return "lessOrEqual"
            case .greater: return "greater"
            case .greaterOrEqual: return "greaterOrEqual"
            case .equal: return "equal"
            case .notEqual: return "notEqual"
            case .step: return "step"
            case .select: return "select"
            case .mix: return "mix"
            case .clamp: return "clamp"
            case .smoothstep: return "smoothstep"
            case .channel(let c): return "channel\(c)"
            case .luma: return "luma"
            case .spread: return "spread"
            case .rgb: return "rgb"
            case let .normalize(low, scale, hole): return "normalize(\(low),\(scale),\(hole))"
            }
        }
    }

    public struct Instruction: Sendable, Hashable {
        public let operation: Operation
        public let operands: [Operand]
        /// The register written.
        public let result: Int

        public init(_ operation: Operation, _ operands: [Operand], result: Int) {
            self.operation = operation
            self.operands = operands
            self.result = result
        }
    }

    /// The kinds of the filter's inputs, in order.
    public let inputs: [PixelKind]
    public let instructions: [Instruction]
    public let output: Operand
    /// An image when the output is 3 samples a pixel, else a plane.
    public let outputKind: PixelKind
    /// Registers the program uses (the largest result index + 1).
    public let registerCount: Int
    /// Samples a pixel of each instruction's result (1 or 3).
    let widths: [Int]

    /// Most instructions and registers a program may have: a formula is far smaller (500 parts at most).
    public static let maxInstructions = 4096

    /// Checks the program (operands defined before use, widths consistent, arities) and works out its widths.
    /// Throws `RenderError.badParameter` naming the first bad instruction.
    public init(inputs: [PixelKind], instructions: [Instruction], output: Operand) throws(RenderError) {
        func bad(_ message: String) -> RenderError { .badParameter(filter: "formula", name: "program", message: message) }
        guard instructions.count <= Self.maxInstructions else { throw bad("more than \(Self.maxInstructions) instructions") }
        var registerWidth = [Int: Int]()
        var widths = [Int]()
        /// The width of a pointer operand, 0 for a number, -3 for a colour; nil when undefined.
        func width(_ operand: Operand) -> Int? {
            switch operand {
            case .input(let i): return inputs.indices.contains(i) ? inputs[i].channels : nil
            case .register(let r): return registerWidth[r]
            case .constant: return 0
            case .color: return -3
            }
        }
        for (k, instruction) in instructions.enumerated() {
            let op = instruction.operation
            guard instruction.operands.count == op.arity else { throw bad("instruction \(k) (\(op)) needs \(op.arity) operands") }
            guard (0..<Self.maxInstructions).contains(instruction.result) else { throw bad("instruction \(k) writes register \(instruction.result)") }
            var operandWidths = [Int]()
            for operand in instruction.operands {
                guard let w = width(operand) else { throw bad("instruction \(k) (\(op)) reads \(operand), which holds nothing yet") }
                operandWidths.append(w)
            }
            let pointerWidths = Set(operandWidths.filter { $0 > 0 })
            let result: Int
            switch op {
            case .channel(let c):
                guard (0..<3).contains(c), operandWidths[0] == 3 else { throw bad("instruction \(k) (\(op)) needs an image and a channel 0...2") }
                result = 1
            case .luma:
                guard operandWidths[0] == 3 else { throw bad("instruction \(k) (luma) needs an image") }
                result = 1
            case .spread:
                guard operandWidths[0] == 1 else { throw bad("instruction \(k) (spread) needs a plane") }
                result = 3
            case .rgb:
                guard operandWidths.allSatisfy({ $0 == 1 || $0 == 0 }) else { throw bad("instruction \(k) (rgb) needs planes or numbers") }
                result = 3
            case .normalize(let low, let scale, let hole):
                guard operandWidths[0] == 1, low.isFinite, scale.isFinite, hole.isFinite else {
                    throw bad("instruction \(k) (normalize) needs a plane and finite bounds")
                }
                result = 1
            default:
                guard pointerWidths.count <= 1 else { throw bad("instruction \(k) (\(op)) mixes planes and images") }
                let hasColor = operandWidths.contains(-3)
                let w = pointerWidths.first ?? (hasColor ? 3 : 1)
                guard !hasColor || w == 3 else { throw bad("instruction \(k) (\(op)) applies a colour to a plane") }
                result = w
            }
            if !op.isElementwise, instruction.operands.contains(.register(instruction.result)) {
                throw bad("instruction \(k) (\(op)) writes the register it reads")
            }
            registerWidth[instruction.result] = result
            widths.append(result)
        }
        guard let outputWidth = width(output) else { throw bad("the output \(output) holds nothing") }
        self.inputs = inputs
        self.instructions = instructions
        self.output = output
        self.outputKind = (outputWidth == 3 || outputWidth == -3) ? .image : .plane
        self.registerCount = (instructions.map(\.result).max() ?? -1) + 1
        self.widths = widths
    }

    /// Whether the program reads one image and computes each output sample from the same sample of it alone:
    /// every instruction element-wise (numbers and colours count per channel), the output an image register.
    public var isChannelwise: Bool {
        guard inputs == [.image], outputKind == .image, case .register = output else { return false }
        return instructions.allSatisfy { $0.operation.isElementwise }
    }

    /// Whether each output sample is one function of the same sample of the one input: a channelwise image
    /// program, or a plane program of element-wise operations and `normalize`. Such a program can be read from a
    /// table of that function (`SampleFunctionTable`).
    var isOneSampleFunction: Bool {
        guard inputs.count == 1, outputKind == inputs[0], case .register = output else { return false }
        return instructions.allSatisfy { instruction in
            if case .normalize = instruction.operation { return outputKind == .plane }
            return instruction.operation.isElementwise
        }
    }

    /// This program run on what `inner` computes: one program doing both, when both are one function of one
    /// sample of the same kind (`isOneSampleFunction`), so a chain of such formula cells (an sRGB decode, a gain,
    /// an encode, each a cell of its own) becomes one function, read from one table. Nil otherwise, or when the
    /// two together would exceed `maxInstructions`.
    public func reading(_ inner: FormulaProgram) -> FormulaProgram? {
        guard isOneSampleFunction, inner.isOneSampleFunction, inputs == inner.inputs,
              instructions.count + inner.instructions.count <= Self.maxInstructions else { return nil }
        let shift = inner.registerCount
        func moved(_ operand: Operand) -> Operand {
            switch operand {
            case .input: return inner.output
            case .register(let r): return .register(r + shift)
            case .constant, .color: return operand
            }
        }
        let outer = instructions.map { Instruction($0.operation, $0.operands.map(moved), result: $0.result + shift) }
        return try? FormulaProgram(inputs: inner.inputs, instructions: inner.instructions + outer, output: moved(output))
    }

    /// The value of an element-wise operation on numbers (what a row of them would hold), for constant folding.
    /// Nil for the operations that are not element-wise.
    public static func fold(_ operation: Operation, _ values: [Float]) -> Float? {
        guard values.count == operation.arity else { return nil }
        let a = values[0], b = values.count > 1 ? values[1] : 0, c = values.count > 2 ? values[2] : 0
        typealias M = FormulaMath
        switch operation {
        case .negate: return M.negate(a)
        case .abs: return M.absolute(a)
        case .sqrt: return M.squareRoot(a)
        case .exp: return M.exponential(a)
        case .log: return M.logarithm(a)
        case .add: return M.add(a, b)
        case .subtract: return M.subtract(a, b)
        case .multiply: return M.multiply(a, b)
        case .divide: return M.divide(a, b)
        case .power: return M.power(a, b)
        case .minimum: return M.minimum(a, b)
        case .maximum: return M.maximum(a, b)
        case .less: return M.less(a, b)
        case .lessOrEqual: return M.lessOrEqual(a, b)
        case .greater: return M.greater(a, b)
        case .greaterOrEqual: return M.greaterOrEqual(a, b)
        case .equal: return M.equal(a, b)
        case .notEqual: return M.notEqual(a, b)
        case .step: return M.step(a, b)
        case .select: return M.select(a, b, c)
        case .mix: return M.mix(a, b, c)
        case .clamp: return M.clamp(a, b, c)
        case .smoothstep: return M.smoothstep(a, b, c)
        case .normalize(let low, let scale, let hole): return M.normalize(a, low: low, scale: scale, hole: hole)
        case .channel, .luma, .spread, .rgb: return nil
        }
    }

    /// One line per instruction: the program's identity in cache keys.
    public var description: String {
        var text = "in[" + inputs.map(\.rawValue).joined(separator: ",") + "]"
        for i in instructions {
            text += ";r\(i.result)=\(i.operation)(" + i.operands.map(\.description).joined(separator: ",") + ")"
        }
        return text + ";out=\(output)"
    }
}
