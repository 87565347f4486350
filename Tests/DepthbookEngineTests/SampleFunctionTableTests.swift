@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// A formula that is one costly function of one input's samples is read from a table of it (`SampleFunctionTable`):
/// within 1e-6 (relative above 1) of the program's own arithmetic everywhere, and exactly the program's value
/// where the table does not serve (0, outside 2^-12…4, negatives, NaN, cells with a kink or a jump). The reference
/// is the same program run instruction by instruction (`runProgram`), on samples chosen to hit the edges.
struct SampleFunctionTableTests {
    typealias P = FormulaProgram

    /// x ≤ 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4), on a plane or on an image's every channel.
    func decode(_ kind: PixelKind) throws -> P { try FormulaFixtures.srgbDecode(kind) }

    /// The linear value times a colour, encoded back: each channel its own function, steep near 0.
    func tintAndEncode() throws -> P {
        try P(inputs: [.image], instructions: [
            P.Instruction(.multiply, [.input(0), .color(1, 0.25, 3)], result: 0),
            P.Instruction(.lessOrEqual, [.register(0), .constant(0.0031308)], result: 1),
            P.Instruction(.multiply, [.register(0), .constant(12.92)], result: 2),
            P.Instruction(.power, [.register(0), .constant(1 / 2.4)], result: 3),
            P.Instruction(.multiply, [.register(3), .constant(1.055)], result: 3),
            P.Instruction(.subtract, [.register(3), .constant(0.055)], result: 3),
            P.Instruction(.select, [.register(1), .register(2), .register(3)], result: 4),
        ], output: .register(4))
    }

    /// A jump (x > 0.7 adds 1), a logarithm (−∞ at 0) and a square root: cells the table must leave to the program.
    func jumpsAndPoles() throws -> P {
        try P(inputs: [.plane], instructions: [
            P.Instruction(.greater, [.input(0), .constant(0.7)], result: 0),
            P.Instruction(.log, [.input(0)], result: 1),
            P.Instruction(.sqrt, [.input(0)], result: 2),
            P.Instruction(.add, [.register(0), .register(1)], result: 0),
            P.Instruction(.add, [.register(0), .register(2)], result: 0),
        ], output: .register(0))
    }

    /// Random samples over −0.5…4.5 and every awkward one: 0 and −0, NaN, infinities, the table's ends and the
    /// floats beside them, the curves' kinks and the jump, nodes exactly, tiny and subnormal values.
    func samples() -> [Float] {
        var values: [Float] = [0, -0.0, .nan, .infinity, -.infinity, 1, 4, Float(4).nextUp, Float(4).nextDown, 0x1p-12, Float(0x1p-12).nextDown,
                               Float(0x1p-12).nextUp, 1e-30, .leastNonzeroMagnitude, 0.04045, Float(0.04045).nextUp,
                               0.0031308, Float(0.0031308).nextUp, 0.7, Float(0.7).nextUp, 0.5, 2, -1, -1e-8]
        values += (0..<200).map { SampleFunctionTable.node($0 * 71) }
        var state: UInt64 = 2026
        for _ in 0..<40000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Float(state >> 40) / Float(1 << 24) * 5 - 0.5)
        }
        return values
    }

    /// The program run both ways over `values` (spread to every channel of an image).
    func bothWays(_ program: P, _ values: [Float]) -> (tabled: [Float], exact: [Float]) {
        let width = program.inputs[0].channels
        let input = values.flatMap { Array(repeating: $0, count: width) }
        let kernels = FormulaKernels(program)
        var tabled = [Float](repeating: 0, count: input.count), exact = tabled
        input.withUnsafeBufferPointer { x in
            tabled.withUnsafeMutableBufferPointer { out in
                kernels.run(inputs: [x.baseAddress!], inputChannels: [width], output: out.baseAddress!, outputChannels: width,
                            count: values.count)
            }
            exact.withUnsafeMutableBufferPointer { out in
                kernels.runProgram(inputs: [x.baseAddress!], inputChannels: [width], output: out.baseAddress!,
                                   outputChannels: width, count: values.count)
            }
        }
        return (tabled, exact)
    }

    @Test func tabulatedProgramsAreTheirArithmeticWithinAMillionth() throws {
        let values = samples()
        for program in [try decode(.plane), try decode(.image), try tintAndEncode(), try jumpsAndPoles()] {
            #expect(FormulaKernels(program).functionTable != nil, "\(program)")
            let (tabled, exact) = bothWays(program, values)
            let channels = program.inputs[0].channels
            var worst: Float = 0
            for (i, (got, want)) in zip(tabled, exact).enumerated() {
                if want.isFinite && got.isFinite {
                    worst = max(worst, abs(got - want) / max(1, abs(want)))
                } else {
                    // Infinities and NaN come only from the program itself.
                    #expect(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN), "\(program) at \(values[i / channels])")
                }
            }
            #expect(worst <= 1e-6, "\(program): worst error \(worst)")
        }
    }

    /// What the table does not serve is the program's own value, bit for bit.
    @Test func samplesOutsideTheTableAreTheProgramsOwn() throws {
        let outside: [Float] = [0, -0.0, .nan, -1, Float(4).nextUp, 17, Float(0x1p-12).nextDown, 1e-30, .leastNonzeroMagnitude, .infinity]
        for program in [try decode(.plane), try decode(.image), try jumpsAndPoles()] {
            let (tabled, exact) = bothWays(program, outside)
            for (got, want) in zip(tabled, exact) {
                #expect(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN), "\(program): \(got) vs \(want)")
            }
        }
    }

    @Test func onlyCostlyFunctionsOfOneSampleAreTabulated() throws {
        let power = try P(inputs: [.plane], instructions: [P.Instruction(.power, [.input(0), .constant(2.4)], result: 0)],
                          output: .register(0))
        let cheap = try P(inputs: [.plane], instructions: [
            P.Instruction(.multiply, [.input(0), .constant(2)], result: 0),
            P.Instruction(.add, [.register(0), .constant(1)], result: 0),
        ], output: .register(0))
        let luma = try P(inputs: [.image], instructions: [P.Instruction(.luma, [.input(0)], result: 0),
                                                          P.Instruction(.power, [.register(0), .constant(2.4)], result: 1)],
                         output: .register(1))
        let twoInputs = try P(inputs: [.plane, .plane], instructions: [
            P.Instruction(.power, [.input(0), .constant(2.4)], result: 0),
            P.Instruction(.add, [.register(0), .input(1)], result: 0),
        ], output: .register(0))
        for program in [power, cheap, luma, twoInputs] {
            #expect(FormulaKernels(program).functionTable == nil, "\(program)")
        }
        #expect(FormulaKernels(try decode(.image)).functionTable?.width == 3)
    }

    /// decode, then tint and encode: one program reading the first's output, equal to the two filters chained.
    @Test func aFormulaOfAnotherFormulasSamplesIsOneProgram() throws {
        let inner = try decode(.image), outer = try tintAndEncode()
        let both = try #require(outer.reading(inner))
        #expect(both.inputs == [.image] && both.instructions.count == inner.instructions.count + outer.instructions.count)
        let photo = EngineFixtures.noise(width: 61, height: 17, channels: 3, seed: 4)
        let source = try EngineFixtures.source(photo, id: "composed")
        let frame = PixelSize(width: 61, height: 17)
        let chained = try Node(FormulaFilter(outer, frame: frame), [try Node(FormulaFilter(inner, frame: frame), [source])])
        let composed = try Node(FormulaFilter(both, frame: frame), [source])
        let target = RenderTarget(size: frame)
        let a = try Evaluator().render(chained, target).samples, b = try Evaluator().render(composed, target).samples
        #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 2e-6 * max(1, abs($1)) })
        // Not one function of one sample, or of another kind: not composed.
        let luma = try P(inputs: [.image], instructions: [P.Instruction(.luma, [.input(0)], result: 0)], output: .register(0))
        let planeDecode = try decode(.plane)
        #expect(outer.reading(luma) == nil && planeDecode.reading(inner) == nil)
    }
}
