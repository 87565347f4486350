import DepthbookEngine
import DepthbookTestSupport
import Testing

/// The compiled form of a notebook formula: programs are checked when made, their rows equal the same maths
/// done sample by sample (across chunk boundaries, threads and tiles), folded constants equal computed rows,
/// and a formula fuses with the pointwise stages around it without changing a bit.
@Suite(.timeLimit(.minutes(30)))
struct FormulaProgramTests {
    typealias P = FormulaProgram

    // MARK: Checked when made

    @Test func programsThatReadNothingOrMixWidthsAreRefused() {
        let bad: [(String, [PixelKind], [P.Instruction], P.Operand)] = [
            ("reads an empty register", [.plane], [P.Instruction(.add, [.input(0), .register(3)], result: 0)], .register(0)),
            ("reads a missing input", [.plane], [P.Instruction(.add, [.input(1), .constant(1)], result: 0)], .register(0)),
            ("mixes a plane and an image", [.plane, .image], [P.Instruction(.multiply, [.input(0), .input(1)], result: 0)], .register(0)),
            ("picks a channel of a plane", [.plane], [P.Instruction(.channel(0), [.input(0)], result: 0)], .register(0)),
            ("picks channel 3", [.image], [P.Instruction(.channel(3), [.input(0)], result: 0)], .register(0)),
            ("spreads an image", [.image], [P.Instruction(.spread, [.input(0)], result: 0)], .register(0)),
            ("colours a plane", [.plane], [P.Instruction(.add, [.input(0), .color(1, 0, 0)], result: 0)], .register(0)),
            ("wrong arity", [.plane], [P.Instruction(.mix, [.input(0), .constant(1)], result: 0)], .register(0)),
            ("spreads in place", [.plane], [P.Instruction(.abs, [.input(0)], result: 0), P.Instruction(.spread, [.register(0)], result: 0)], .register(0)),
            ("outputs nothing", [.plane], [], .register(0)),
            ("writes a register out of range", [.plane], [P.Instruction(.abs, [.input(0)], result: 99_999)], .register(99_999)),
            ("normalizes with an infinite bound", [.plane], [P.Instruction(.normalize(low: 0, scale: .infinity, hole: 0), [.input(0)], result: 0)], .register(0)),
        ]
        for (what, inputs, instructions, output) in bad {
            #expect(throws: RenderError.self, "\(what)") { try P(inputs: inputs, instructions: instructions, output: output) }
        }
    }

    @Test func theFilterChecksItsInputsAgainstTheProgram() throws {
        let program = try P(inputs: [.image, .plane], instructions: [P.Instruction(.spread, [.input(1)], result: 0),
                                                                       P.Instruction(.multiply, [.input(0), .register(0)], result: 1)],
                            output: .register(1))
        let image = try EngineFixtures.source(EngineFixtures.noise(width: 4, height: 3, channels: 3), id: "i")
        let plane = try EngineFixtures.source(EngineFixtures.noise(width: 4, height: 3, channels: 1), id: "p")
        #expect(throws: RenderError.self) { try Node(FormulaFilter(program, frame: PixelSize(width: 4, height: 3)), [plane, image]) }
        #expect(throws: RenderError.self) { try Node(FormulaFilter(program, frame: PixelSize(width: 4, height: 3)), [image]) }
        let node = try Node(FormulaFilter(program, frame: PixelSize(width: 4, height: 3)), [image, plane])
        #expect(node.kind == .image)
        #expect(throws: RenderError.self) { try FormulaFilter(program, frame: PixelSize(width: 0, height: 3)) }
    }

    // MARK: Rows equal the maths

    /// image · spread(normalize(plane)) + colour, then clamped: every kind of operand and an image result.
    func darkening(_ width: Int, _ height: Int) throws -> (Node, Raster<Float>, Raster<Float>) {
        let rgb = EngineFixtures.noise(width: width, height: height, channels: 3, seed: 3)
        var d = EngineFixtures.noise(width: width, height: height, channels: 1, seed: 4)
        d.samples[5] = .nan
        let program = try P(inputs: [.image, .plane], instructions: [
            P.Instruction(.normalize(low: 0.2, scale: 1.25, hole: 0), [.input(1)], result: 0),
            P.Instruction(.spread, [.register(0)], result: 1),
            P.Instruction(.multiply, [.input(0), .register(1)], result: 2),
            P.Instruction(.add, [.register(2), .color(0.1, 0, -0.1)], result: 2),
            P.Instruction(.clamp, [.register(2), .constant(0), .constant(1)], result: 3),
        ], output: .register(3))
        let node = try Node(FormulaFilter(program, frame: PixelSize(width: 1, height: 1)),
                            [try EngineFixtures.source(rgb, id: "rgb"), try EngineFixtures.source(d, id: "d", hasHoles: true)])
        return (node, rgb, d)
    }

    @Test(arguments: [(7, 3), (600, 2), (257, 5)])
    func rowsEqualTheMathsSampleBySample(width: Int, height: Int) throws {
        let (node, rgb, d) = try darkening(width, height)
        let out = try Evaluator().render(node, RenderTarget(size: node.extent))
        var expected = [Float]()
        let offsets: [Float] = [0.1, 0, -0.1]
        for i in 0..<(width * height) {
            let v = d.samples[i]
            let k: Float = v.isNaN ? 0 : min(max((v - 0.2) * 1.25, 0), 1)
            for c in 0..<3 { expected.append(min(max(rgb.samples[i * 3 + c] * k + offsets[c], 0), 1)) }
        }
        #expect(out.samples == expected)
        #expect(node.extent == PixelSize(width: width, height: height))
    }

    @Test(arguments: [1, 2, 3])
    func theSameBitsWhateverTheThreadsAndTiles(threads: Int) throws {
        let (node, _, _) = try darkening(300, 40)
        let whole = try Evaluator(context: RenderContext(threads: 1)).render(node, RenderTarget(size: node.extent))
        let other = try Evaluator(context: RenderContext(threads: threads)).render(node, RenderTarget(size: node.extent))
        #expect(other.samples == whole.samples)
        let region = PixelRect(x: 100, y: 7, width: 180, height: 9)
        let tile = try Evaluator(context: RenderContext(threads: threads)).render(node, RenderTarget(size: node.extent, region: region))
        #expect(tile.samples == whole.cropped(to: region).samples)
    }

    /// The filter on its own (PointwiseFilter.render, as a cached input would be) and fused into a chain after
    /// a colour matrix give the same bits as materialising each stage.
    @Test func fusedAndMaterialisedAgree() throws {
        let (node, _, _) = try darkening(123, 17)
        let target = RenderTarget(size: node.extent)
        let inputs = try node.inputs.map { try Evaluator().render($0, target) }
        let request = RenderRequest(target: target, extent: node.extent, inputTargets: [target, target])
        let alone = try node.filter.render(inputs, request, context: RenderContext())
        let fused = try Evaluator().render(node, target)
        #expect(alone.samples == fused.samples)

        let grey = try node.applying(ColorMatrix(matrix: [0.3, 0.3, 0.3, 0, 0.3, 0.3, 0.3, 0, 0.3, 0.3, 0.3, 0]))
        let chained = try Evaluator().render(grey, target)
        let stage = try PlaneSource(fused.raster, id: "stage")
        let separate = try Evaluator().render(try Node(stage).applying(ColorMatrix(matrix: [0.3, 0.3, 0.3, 0, 0.3, 0.3, 0.3, 0, 0.3, 0.3, 0.3, 0])), target)
        #expect(chained.samples == separate.samples)
    }

    /// Each element-wise operation on rows gives exactly the value constant folding gives for the same numbers.
    @Test func foldedConstantsEqualComputedRows() throws {
        let unary: [P.Operation] = [.negate, .abs, .sqrt, .exp, .log]
        let binary: [P.Operation] = [.add, .subtract, .multiply, .divide, .power, .minimum, .maximum, .less, .lessOrEqual,
                                     .greater, .greaterOrEqual, .equal, .notEqual, .step]
        let ternary: [P.Operation] = [.select, .mix, .clamp, .smoothstep]
        let values: [Float] = [-2, -0.5, 0, 0.25, 0.5, 1, 3, .nan, 0.7, -0.0]
        let a = Raster<Float>(width: values.count, height: 1, channels: 1, samples: values)
        let b = Raster<Float>(width: values.count, height: 1, channels: 1, samples: values.reversed())
        let c = Raster<Float>(width: values.count, height: 1, channels: 1, samples: values.map { $0 * 0.5 + 0.2 })
        let sources = try [EngineFixtures.source(a, id: "a", hasHoles: true), EngineFixtures.source(b, id: "b", hasHoles: true),
                           EngineFixtures.source(c, id: "c", hasHoles: true)]
        for op in unary + binary + ternary {
            let operands = (0..<op.arity).map { P.Operand.input($0) }
            let program = try P(inputs: Array(repeating: .plane, count: op.arity), instructions: [P.Instruction(op, operands, result: 0)],
                                output: .register(0))
            let node = try Node(FormulaFilter(program, frame: PixelSize(width: 1, height: 1)), Array(sources.prefix(op.arity)))
            let rows = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
            for i in values.indices {
                let args = [a.samples[i], b.samples[i], c.samples[i]].prefix(op.arity)
                let folded = try #require(P.fold(op, Array(args)))
                #expect(rows[i].bitPattern == folded.bitPattern || (rows[i].isNaN && folded.isNaN), "\(op) at \(Array(args))")
            }
        }
    }

    @Test func constantsAndInputsCanBeTheOutput() throws {
        let plane = try EngineFixtures.source(EngineFixtures.noise(width: 5, height: 2, channels: 1), id: "p")
        let colour = try Node(FormulaFilter(try P(inputs: [], instructions: [], output: .color(0.25, 0.5, 1)),
                                            frame: PixelSize(width: 3, height: 2)))
        #expect(colour.kind == .image && colour.extent == PixelSize(width: 3, height: 2))
        #expect(try Evaluator().render(colour, RenderTarget(size: colour.extent)).samples == Array(repeating: [0.25, 0.5, 1], count: 6).flatMap { $0 })
        let number = try Node(FormulaFilter(try P(inputs: [], instructions: [], output: .constant(0.5)), frame: PixelSize(width: 2, height: 2)))
        #expect(number.kind == .plane)
        #expect(try Evaluator().render(number, RenderTarget(size: number.extent)).samples == [0.5, 0.5, 0.5, 0.5])
        let passed = try Node(FormulaFilter(try P(inputs: [.plane], instructions: [], output: .input(0)), frame: PixelSize(width: 1, height: 1)), [plane])
        let target = RenderTarget(size: plane.extent)
        #expect(try Evaluator().render(passed, target).samples == (try Evaluator().render(plane, target)).samples)
    }

    @Test func channelsLumaAndRgb() throws {
        let rgb = Raster<Float>(width: 2, height: 1, channels: 3, samples: [0.2, 0.4, 0.6, 1, 0, 0.5])
        let source = try EngineFixtures.source(rgb, id: "rgb")
        // rgb(luma, b, 0.5): the channels rearranged, a number as a channel.
        let program = try P(inputs: [.image], instructions: [
            P.Instruction(.luma, [.input(0)], result: 0),
            P.Instruction(.channel(2), [.input(0)], result: 1),
            P.Instruction(.rgb, [.register(0), .register(1), .constant(0.5)], result: 2),
        ], output: .register(2))
        let node = try Node(FormulaFilter(program, frame: PixelSize(width: 1, height: 1)), [source])
        let out = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
        let l0: Float = 0.2126 * 0.2 + 0.7152 * 0.4 + 0.0722 * 0.6, l1: Float = 0.2126 * 1 + 0.7152 * 0 + 0.0722 * 0.5
        #expect(out == [l0, 0.6, 0.5, l1, 0.5, 0.5])
    }
}
