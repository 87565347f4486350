import DepthbookDocument
import DepthbookEngine
import DepthbookProtocol
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookEffects

/// Mutated formula lines through the lexer, the parser, the type check against a notebook and, for what type
/// checks, the compiler and one run of the program: the parser returns or throws a `FormulaError` whose offset
/// lies inside the line; every slider it accepts can be stepped; what type checks compiles (a `FormulaError`
/// there would be a bug, the compiler says so itself) to a program of the checked kind, and that program runs.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct FormulaFuzzTests {
    /// Every formula of the bundled notebooks, and lines for each rule of the grammar (docs/formulas.md).
    static func seeds() throws -> [[UInt8]] {
        var formulas: [String] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if case .string(let text)? = members["formula"] { formulas.append(text) }
                // In key order: a dictionary's own order changes from process to process, and the seeds' may not.
                for key in members.keys.sorted() { collect(members[key]!) }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        let notebooks = PackageRoot.url.appendingPathComponent("Notebooks")
        for name in try FileManager.default.contentsOfDirectory(atPath: notebooks.path).sorted() where name.hasSuffix(".json") {
            collect(try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: notebooks.appendingPathComponent(name))))
        }
        formulas += [
            "1 + 2 * 3 - 4 / 5 ^ -6 ^ 2", "-(image) + +0.5", "image.r * image.g - image.b", "disparity < 0.5 ? image : gray(luma(image))",
            "a1 <= 1 ? 2 : b_ > 3 ? 4 : 5", "mix(image, rgb(1, 0.9, 0.8), smoothstep(0.2, 0.8, depth))",
            "clamp(abs(sqrt(exp(log(matte)))), 0, 1) != skin == 0", "min(hair, teeth, glasses, sky) >= max(1, 2, 3, 4, 5)",
            "step(subject, disparity) * pow(image, 2.2)", "$a(0..1 = 0.5) * $b(-1e3..1e3 = 0) + $a", "image * $k(1e-300..1 = 1e-300)",
            "tinted * mask + here - later", "noir.r", ".5e-3 + 7E+2 + 1.", "((((((((image))))))))", " \t\r\n image \n",
        ]
        return formulas.map { Array($0.utf8) }
    }

    static let dictionary = [
        "+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=", "?", ":", ",", "(", ")", ".", "..", "=", "$", " ", "\t", "\u{0}", "é",
        ".r", ".g", ".b", "mix(", "clamp(", "smoothstep(", "step(", "abs(", "min(", "max(", "pow(", "sqrt(", "exp(", "log(", "luma(",
        "rgb(", "gray(", "image", "disparity", "depth", "matte", "skin", "hair", "teeth", "glasses", "sky", "subject", "tinted", "mask",
        "here", "later", "intro", "photo", "$a", "$a(0..1 = 0.5)", "$b(-1e308..1e308 = 0)", "$c(0..1e-323 = 0)", "$d(1..1 = 1)",
        "$e(0..3.4e38 = 1)", "$f(-0..0 = 0)", "1e-323", "2.5e-322", "3.4e38", "3.5e38", "1e39", "0.0", "1e", "1e+", "((((((((", "))))",
        "? 1 : 0", "x ? y : z", "a < b < c",
    ]

    /// The notebook the formulas are checked in, as the cell "here": a note, a mask formula and an image formula above.
    static let notebook = Notebook(name: "fuzz", title: "fuzz", photo: .sample("portrait"), cells: [
        Cell(id: "photo", kind: .photo),
        Cell(id: "intro", kind: .note, text: "a note"),
        Cell(id: "tinted", kind: .formula, formula: "image * rgb(1, 0.9, 0.8)"),
        Cell(id: "mask", kind: .formula, formula: "disparity > 0.5"),
        Cell(id: "here", kind: .formula, formula: "image"),
        Cell(id: "later", kind: .formula, formula: "image"),
    ])

    @Test func formulaLines() async throws {
        let campaign = MutationFuzzer("formula", seeds: try Self.seeds(), dictionary: MutationFuzzer.tokens(Self.dictionary),
                                      anchors: [0x24, 0x28, 0x2E], executions: 120_000, maxLength: 2_100)
        let report = await campaign.run { input in
            let text = String(decoding: input, as: UTF8.self)
            var outcome = try Self.checkInNotebook(text)
            let parsed: ParsedFormula
            do throws(FormulaError) {
                parsed = try FormulaParser.parse(text)
            } catch {
                try Self.checkError(error, in: text)
                return outcome + "; syntax: \(Self.shape(error.message))"
            }
            try Self.checkSliders(parsed)
            outcome += try Self.compileAndRun(parsed)
            return outcome
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }

    /// `Formula.parse` against the notebook (names resolved to the cells above): a formula or a `FormulaError`.
    static func checkInNotebook(_ text: String) throws -> String {
        do {
            let formula = try Formula.parse(text, in: notebook, before: "here")
            return "checked \(formula.output.map { "\($0)" } ?? "-") \(formula.sliders.count)"
        } catch {
            try checkError(error, in: text)
            return "refused: \(shape(error.message))"
        }
    }

    static func checkError(_ error: FormulaError, in text: String) throws {
        try FuzzFailure.check(error.position >= 0 && error.position <= text.utf8.count,
                              "error offset \(error.position) outside a line of \(text.utf8.count) bytes: \(error.message)")
        try FuzzFailure.check(!error.message.isEmpty, "an error without a message at \(error.position)")
    }

    /// The start of a message without the line's own slider names ("slider $name is not declared"): outcomes the
    /// campaign tells apart by what went wrong, not by which name.
    static func shape(_ message: String) -> String {
        var out = "", inName = false
        for character in message {
            if character == "$" {
                inName = true
            } else if inName, character.isLetter || character.isNumber || character == "_" {
                continue
            } else {
                inName = false
            }
            out.append(character)
            if out.count == 40 { break }
        }
        return out
    }

    /// Every slider has a finite range it can be stepped over, a default within it, and a finite step.
    static func checkSliders(_ parsed: ParsedFormula) throws {
        for slider in parsed.sliders {
            try FuzzFailure.check(FormulaSlider.isSteppable(min: slider.min, max: slider.max),
                                  "slider \(slider.name) over \(slider.min)...\(slider.max)")
            try FuzzFailure.check((slider.min...slider.max).contains(slider.defaultValue), "slider \(slider.name) starts at \(slider.defaultValue)")
            let step = slider.step
            try FuzzFailure.check(step.isFinite && step > 0 && step <= slider.max - slider.min,
                                  "slider \(slider.name) over \(slider.min)...\(slider.max) steps by \(step)")
        }
    }

    /// Types the names (planes as they are, cells alternately images and masks), and when that checks, compiles
    /// the formula and runs it over four pixels of edge values.
    static func compileAndRun(_ parsed: ParsedFormula) throws -> String {
        var types: [FormulaType] = []
        var bindings: [FormulaCompiler.Binding] = []
        var kinds: [PixelKind] = []
        for (k, name) in parsed.names.enumerated() {
            switch name.target {
            case .plane(.subject):
                types.append(.number)
                bindings.append(.uniform(0.75))
                continue
            case .plane(let plane): types.append(plane.type)
            case .cell: types.append(k % 2 == 0 ? .image : .mask)
            }
            let depth = name.target == .plane(.disparity) || name.target == .plane(.depth)
            bindings.append(.input(kinds.count, normalize: depth ? (low: 0.25, scale: 2, hole: 0) : nil))
            kinds.append(types[k] == .image ? .image : .plane)
        }
        let type: FormulaType
        do {
            type = try FormulaTypeCheck.check(parsed, names: types)
        } catch {
            try checkError(error, in: parsed.text)
            return "; type: \(shape(error.message))"
        }
        let program: FormulaProgram
        do {
            let sliders = parsed.sliders.map { Float($0.defaultValue) }
            program = try FormulaCompiler.compile(parsed, bindings: bindings, inputKinds: kinds, sliders: sliders)
        } catch {
            throw FuzzFailure("a formula that type checks does not compile: \(error)")
        }
        let expected: PixelKind = type.channels == .three ? .image : .plane
        try FuzzFailure.check(program.outputKind == expected, "the program makes \(program.outputKind), the type check said \(type.channels)")
        try run(program)
        return "; compiled \(type.channels) \(type.uniform ? "uniform" : "")"
    }

    /// One run of the program's kernels over four pixels: 0, 1, a negative value and NaN in every channel.
    static func run(_ program: FormulaProgram) throws {
        let filter = try FormulaFilter(program, frame: PixelSize(width: 2, height: 2))
        let values: [Float] = [0, 1, -0.5, .nan]
        let inputs = program.inputs.map { kind in (0..<4).flatMap { [Float](repeating: values[$0], count: kind.channels) } }
        var output = [Float](repeating: 0, count: 4 * program.outputKind.channels)
        let pointers = inputs.map { input -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: input.count)
            p.initialize(from: input, count: input.count)
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        output.withUnsafeMutableBufferPointer { out in
            filter.apply(inputs: pointers.map { UnsafePointer($0) }, inputChannels: program.inputs.map(\.channels),
                         output: out.baseAddress!, outputChannels: program.outputKind.channels, count: 4)
        }
    }
}
