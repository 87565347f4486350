import DepthbookDocument
import DepthbookEngine
import DepthbookProtocol
import Foundation
import Testing
@testable import DepthbookEffects

/// The formula language (docs/formulas.md): every rule of the grammar, every error with the offset it points at,
/// and hostile lines answered with a clear error, never a crash or a deep stack.
@Suite(.timeLimit(.minutes(30)))
struct FormulaParserTests {
    typealias S = EffectTestSupport

    /// A formula without names compiled: its constant value (1 number, or a colour's 3).
    func value(_ text: String, _ params: [String: Float] = [:]) throws -> [Float] {
        let parsed = try FormulaParser.parse(text)
        _ = try FormulaTypeCheck.check(parsed, names: [])
        let program = try FormulaCompiler.compile(parsed, bindings: [], inputKinds: [],
                                                  sliders: parsed.sliders.map { params[$0.name] ?? Float($0.defaultValue) })
        #expect(program.instructions.isEmpty, "\(text) folds to a constant")
        switch program.output {
        case .constant(let v): return [v]
        case let .color(r, g, b): return [r, g, b]
        default:
            Issue.record("\(text) is not constant")
            return []
        }
    }

    /// The error parsing `text` alone (syntax), or nil.
    func syntaxError(_ text: String, limits: Notebook.Limits = Notebook.limits) -> FormulaError? {
        do {
            _ = try FormulaParser.parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// A notebook with a mask step, a formula giving an image, and a note above the formula being checked, and one
    /// cell below it.
    static let notebook = Notebook(name: "t", title: "t", photo: .sample("portrait"), cells: [
        Cell(id: "photo", kind: .photo),
        Cell(id: "intro", kind: .note, text: "a note"),
        S.step("mask", "depthThreshold", ["disparity": "photo.disparity"]),
        Cell(id: "tinted", kind: .formula, formula: "image * rgb(1, 0.9, 0.8)"),
        Cell(id: "my-cell", kind: .step, effect: "noir", inputs: ["image": "photo"]),
        Cell(id: "here", kind: .formula, formula: "image"),
        Cell(id: "later", kind: .formula, formula: "image"),
    ])

    /// The error checking `text` as the formula of cell "here" of `notebook`, or nil.
    func error(_ text: String) -> FormulaError? {
        do {
            _ = try Formula.parse(text, in: Self.notebook, before: "here")
            return nil
        } catch {
            return error
        }
    }

    // MARK: The grammar, rule by rule

    @Test func numbers() throws {
        #expect(try value("1") == [1])
        #expect(try value("0.25") == [0.25])
        #expect(try value(".5") == [0.5])
        #expect(try value("1e-3") == [0.001])
        #expect(try value("2.5E+2") == [250])
        #expect(try value("  7\t") == [7])
    }

    @Test func arithmeticPrecedenceAndAssociativity() throws {
        #expect(try value("1 + 2 * 3") == [7])
        #expect(try value("(1 + 2) * 3") == [9])
        #expect(try value("1 - 2 - 3") == [-4])
        #expect(try value("8 / 4 / 2") == [1])
        #expect(try value("2 ^ 3 ^ 2") == [512], "^ is right-associative")
        #expect(try value("-2 ^ 2") == [-4], "unary minus binds looser than ^")
        #expect(try value("2 ^ -1") == [0.5])
        #expect(try value("2 ^ -1 ^ 2") == [0.5], "2 ^ (-(1 ^ 2))")
        #expect(try value("--3") == [3])
        #expect(try value("+3 - -3") == [6])
        #expect(try value("2 * -3") == [-6])
        #expect(try value("1 / 0") == [.infinity])
    }

    @Test func comparisonsAndConditionals() throws {
        #expect(try value("1 < 2") == [1])
        #expect(try value("2 <= 1") == [0])
        #expect(try value("2 > 1") == [1])
        #expect(try value("1 >= 1") == [1])
        #expect(try value("1 == 1") == [1])
        #expect(try value("1 != 1") == [0])
        #expect(try value("1 + 1 > 1 ? 10 : 20") == [10], "comparison looser than +, ?: loosest")
        #expect(try value("0 ? 2 : 3") == [3])
        #expect(try value("0 ? 1 : 0 ? 2 : 3") == [3], "else-chains")
        #expect(try value("0 ? 1 : 1 ? 2 : 3") == [2])
        #expect(try value("1 ? 0 ? 4 : 5 : 6") == [5], "a conditional inside the then-branch")
        #expect(try value("(0 / 0) ? 1 : 2") == [2], "NaN counts as false")
    }

    @Test func functions() throws {
        #expect(try value("mix(0, 10, 0.25)") == [2.5])
        #expect(try value("clamp(5, 0, 1)") == [1])
        #expect(try value("clamp(-5, 0, 1)") == [0])
        #expect(try value("smoothstep(0, 1, 0.5)") == [0.5])
        #expect(try value("smoothstep(0, 1, 0.25)") == [0.15625])
        #expect(try value("smoothstep(0.5, 0.5, 0.5)") == [1], "equal edges: a step")
        #expect(try value("step(0.5, 0.4)") == [0])
        #expect(try value("step(0.5, 0.5)") == [1])
        #expect(try value("abs(-3)") == [3])
        #expect(try value("min(3, 1, 2)") == [1])
        #expect(try value("max(3, 1, 2, 5, 4)") == [5])
        #expect(try value("pow(2, 10)") == [1024])
        #expect(try value("sqrt(16)") == [4])
        #expect(try value("exp(0)") == [1])
        #expect(try value("log(1)") == [0])
        #expect(try value("luma(rgb(1, 0, 0))") == [0.2126])
        #expect(try value("luma(rgb(0, 0, 1))") == [0.0722])
        #expect(try value("gray(0.5)") == [0.5, 0.5, 0.5])
        #expect(try value("rgb(0.1, 0.2, 0.3)") == [0.1, 0.2, 0.3])
    }

    @Test func channelsOfColours() throws {
        #expect(try value("rgb(0.1, 0.2, 0.3).g") == [0.2])
        #expect(try value("rgb(0.1, 0.2, 0.3).b * 2") == [0.6])
        #expect(try value("(rgb(1, 2, 3) * 2).r") == [2])
        #expect(try value("rgb(1, 2, 3) + 1") == [2, 3, 4])
    }

    @Test func slidersDeclareOnceAndReadTheirValue() throws {
        #expect(try value("$k(0..10 = 2) * 3") == [6])
        #expect(try value("$k(0..10 = 2) * 3", ["k": 4]) == [12])
        #expect(try value("$k(-3..3 = -1.5) + $k") == [-3], "declared once, used again by name")
        #expect(try value("$a(0..1 = 0.25) + $b(+1..2 = 1.5)") == [1.75])
        let parsed = try FormulaParser.parse("image * pow(disparity, $power(0..4 = 1)) + $lift(-0.5..0.5 = 0)")
        #expect(parsed.sliders == [FormulaSlider(name: "power", min: 0, max: 4, defaultValue: 1, position: 23),
                                   FormulaSlider(name: "lift", min: -0.5, max: 0.5, defaultValue: 0, position: 43)])
        #expect(parsed.sliders[0].step == 0.01 && parsed.sliders[1].step == 0.01)
        #expect(FormulaSlider(name: "r", min: 0, max: 200, defaultValue: 20, position: 0).step == 1)
        #expect(FormulaSlider(name: "r", min: 0, max: 0.001, defaultValue: 0, position: 0).step == 0.00001)
    }

    @Test func referencesAndOutputs() throws {
        let a = try Formula.parse("mix(image, tinted, mask * skin) + subject", in: Self.notebook, before: "here")
        #expect(a.references == ["photo.image", "tinted", "mask", "photo.skin", "photo.disparity"])
        #expect(a.output == .image)
        let b = try Formula.parse("luma(tinted) * matte * depth", in: Self.notebook, before: "here")
        #expect(b.references == ["tinted", "photo.portraitEffectsMatte", "photo.depth"])
        #expect(b.output == .plane)
        #expect(try Formula.parse("0.5", in: Self.notebook).output == .plane)
        #expect(try Formula.parse("rgb(1, 0, 0)", in: Self.notebook).output == .image)
        #expect(try Formula.parse("image.g", in: Self.notebook).output == .plane)
        // A plane's name wins over a cell of the same id.
        let shadowed = Notebook(name: "t", title: "t", photo: .sample("portrait"), cells: [
            Cell(id: "disparity", kind: .view, input: "photo.image"), Cell(id: "f", kind: .formula, formula: "disparity")])
        #expect(try Formula.parse("disparity", in: shadowed, before: "f").references == ["photo.disparity"])
        let tinted = try #require(Self.notebook.cell("tinted"))
        #expect(try NotebookValidator().check(Self.notebook).references(of: tinted) == ["photo.image"])
    }

    @Test func wholeLinesFoldWhatIsUniform() throws {
        // pow(2, $ev) and the colour are one constant each: two instructions over the image, none over numbers.
        let parsed = try FormulaParser.parse("image * pow(2, $ev(-2..2 = 1)) * rgb(1, 0.5, 0.25)")
        let program = try FormulaCompiler.compile(parsed, bindings: [.input(0, normalize: nil)], inputKinds: [.image], sliders: [1])
        #expect(program.instructions.map(\.operation) == [.multiply, .multiply])
        #expect(program.instructions[0].operands == [.input(0), .constant(2)])
        #expect(program.instructions[1].operands == [.register(0), .color(1, 0.5, 0.25)])
    }

    /// x^1, x·1 and 1·x leave the row as it is (no pass); a plane times an all-ones colour still becomes an image.
    /// Names bind to inputs in the order they first appear.
    @Test func powersAndProductsByOneAreTheRowItself() throws {
        func program(_ text: String, _ kinds: [PixelKind] = [.image, .plane]) throws -> FormulaProgram {
            try FormulaCompiler.compile(try FormulaParser.parse(text), bindings: [.input(0, normalize: nil), .input(1, normalize: nil)],
                                        inputKinds: kinds, sliders: [1])
        }
        let darken = try program("image * pow(disparity, $power(0..4 = 1))")
        #expect(darken.instructions.map(\.operation) == [.spread, .multiply])
        #expect(try program("1 * image * 1").instructions.isEmpty)
        #expect(try program("1 * image * 1").output == .input(0))
        #expect(try program("pow(image, $p(0..4 = 1)) * 2").instructions.map(\.operation) == [.multiply])
        let coloured = try program("disparity * rgb(1, 1, 1)", [.plane])
        #expect(coloured.outputKind == .image && coloured.instructions.map(\.operation) == [.spread, .multiply])
        #expect(try program("pow(image, 2)").instructions.map(\.operation) == [.power])
    }

    // MARK: Errors, each with its position

    @Test func nameErrors() {
        let unknown = error("image * dispariti")
        #expect(unknown?.position == 8)
        #expect(unknown?.message.hasPrefix("unknown name “dispariti” (did you mean “disparity”?); planes: image, disparity, depth, matte, skin, hair, teeth, glasses, sky, subject") == true)
        #expect(unknown?.message.contains("cells above: photo, mask, tinted") == true, "\(unknown?.message ?? "")")
        #expect(error("image + later")?.position == 8)
        #expect(error("image + later")?.message.contains("a cell below this one") == true)
        #expect(error("intro * 2") == FormulaError(position: 0, message: "“intro” is a note cell and has no picture to read"))
        #expect(error("mix + 1") == FormulaError(position: 0, message: "“mix” is a function: write mix(a, b, t)"))
        #expect(error("mx(1, 2)") == FormulaError(position: 0, message: "unknown function “mx”; functions: mix, clamp, smoothstep, step, abs, min, max, pow, sqrt, exp, log, luma, rgb, gray"))
        // A cell whose id is not a name (a hyphen) cannot be named: my - cell is a subtraction of unknown names.
        #expect(error("my-cell")?.position == 0)
    }

    @Test func typeErrors() {
        #expect(error("disparity.r") == FormulaError(position: 9, message: "“.r” picks a channel of an image, but this is a mask"))
        #expect(error("2 * 0.5.g")?.position == 7)
        #expect(error("mask.b")?.message == "“.b” picks a channel of an image, but this is a mask")
        #expect(error("1 + luma(skin)") == FormulaError(position: 4, message: "luma(image) takes an image, but this is a mask: it is grey already"))
        #expect(error("gray(tinted)")?.position == 0)
        #expect(error("gray(tinted)")?.message.hasPrefix("gray(x) makes an image of a mask or a number, but this is an image already") == true)
        #expect(error("rgb(skin, image, 0)") == FormulaError(position: 0, message: "rgb(r, g, b) takes masks or numbers, but argument 2 is an image (pick a channel with .g)"))
        #expect(error("mix(1, 2)") == FormulaError(position: 0, message: "mix(a, b, t) takes 3 arguments, not 2"))
        #expect(error("abs()")?.message == "abs(x) takes 1 argument, not 0")
        #expect(error("max(1)")?.message == "max(a, b, …) takes at least 2 arguments, not 1")
    }

    @Test func syntaxErrors() {
        let cases: [(String, Int, String)] = [
            ("", 0, "the formula is empty: write an expression of the photo's planes, e.g. image * 0.5"),
            ("   ", 0, "the formula is empty: write an expression of the photo's planes, e.g. image * 0.5"),
            ("image +", 7, "the formula ends where a value is expected"),
            ("(image", 6, "expected “)” to close the “(” at offset 0, found the end of the formula"),
            ("image)", 5, "unexpected “)”: there is no “(” for it to close"),
            ("image skin", 6, "expected an operator (+ - * / ^, a comparison or ?) before “skin”"),
            ("? 1", 0, "expected a value (a number, a plane, a cell, a function or a $slider), found “?”"),
            ("1 ? 2", 5, "expected “:” and the value where the condition is false (condition ? a : b), found the end of the formula"),
            ("1 < 2 < 3", 6, "comparisons do not chain: for a < b < c write (a < b) * (b < c)"),
            ("mix(1, 2 3)", 9, "expected “,” or “)” in the arguments of mix(a, b, t), found “3”"),
            ("image.x", 6, "after “.” write r, g or b (a channel of an image), found “x”"),
            ("image.", 6, "after “.” write r, g or b (a channel of an image), found the end of the formula"),
            ("2image", 1, "a name cannot start with a digit, and a number cannot run into a name: write an operator between them, as in 2 * image"),
            ("1e", 1, "a number's exponent needs digits, as in 1e-3"),
            ("1e99", 0, "1e99 is too large for a pixel value"),
            ("image é", 6, "unexpected character “é”: formulas are written in plain ASCII (names, numbers, + - * / ^ < > = ? : , ( ) . $)"),
            ("a && b", 2, "unexpected “&”: the language has no && or ||; multiply conditions (a * b) for “and”, use max(a, b) for “or”"),
            ("!image", 0, "unexpected “!”: the language has no “not”; write != for “not equal”, or 1 - x"),
            ("image % 2", 6, "unexpected “%”: the language has no remainder"),
            ("[1]", 0, "unexpected “[”: group with ( and )"),
            ("1; 2", 1, "unexpected “;”: a formula is one expression"),
            ("image = 1", 6, "expected an operator (+ - * / ^, a comparison or ?) before “=”"),
            ("$power * 2", 0, "slider $power is not declared: declare it where it is first used, as $power(lowest..highest = start)"),
            ("$p(0..1 = 0.5) + $p(0..1 = 0.5)", 17, "slider $p is declared twice; write $p alone to use it again"),
            ("$p(1..0 = 0.5)", 3, "the slider's lowest value (1) must be below its highest (0)"),
            ("$p(0..1 = 2)", 10, "the starting value 2 is outside 0..1"),
            ("$ p(0..1 = 1)", 2, "write the slider's name right after “$”, as in $power(0..4 = 1)"),
            ("$p(0 1)", 5, "expected “..” between the slider's lowest and highest values, as in $p(0..4 = 1), found “1”"),
            ("$p(0..1)", 7, "expected “=” and the slider's starting value, as in $p(0..4 = 1), found “)”"),
            ("$p(0..1 = 1", 11, "expected “)” to end the slider's declaration, found the end of the formula"),
            ("$p(a..1 = 1)", 3, "expected a number for the slider's lowest value, found “a”"),
        ]
        for (text, position, message) in cases {
            #expect(syntaxError(text) == FormulaError(position: position, message: message), "\(text)")
        }
        #expect(syntaxError("$p(0..1 = 0.5)") == nil)
    }

    /// A slider's range comes from a client: one whose step cannot be computed (a hundredth of the span
    /// subnormal or zero, or the span infinite) is refused, and the step itself is computed without a loop
    /// (`$a(0..1e-323 = 0)` once spun a server thread for ever).
    @Test func sliderRangesThatCannotBeSteppedAreRefused() {
        let narrow = "the slider's range 0..1e-323 is too narrow or too wide to step: its span must be finite and at least 1e-300"
        #expect(syntaxError("image * $a(0..1e-323 = 0)") == FormulaError(position: 11, message: narrow))
        #expect(syntaxError("$a(0..5e-324 = 0)")?.message.hasPrefix("the slider's range 0..5e-324 is too narrow") == true)
        // Literals past a float's range are refused by the lexer, so the widest span is finite and steps.
        #expect(syntaxError("$a(0..1e999 = 0)")?.message == "1e999 is too large for a pixel value")
        #expect(syntaxError("$a(-3e38..3e38 = 0)") == nil)
        #expect(syntaxError("$a(0..1e-300 = 0)") == nil, "the narrowest range still steps")
    }

    /// The step is the power of ten at or below a hundredth of the span (as the loop it replaced gave), and
    /// finite for any range, accepted or not.
    @Test func sliderStepsArePowersOfTenNearAHundredthOfTheRange() {
        for span in [4.0, 200, 0.5, 3e-7, 7.5e12, 42, 2.5e-298, 3e300] {
            let step = FormulaSlider.step(min: -span / 2, max: span / 2), target = span / 100
            #expect(step <= target * (1 + 1e-9) && step * 10 > target * (1 - 1e-9), "span \(span): \(step)")
            #expect(abs(log10(step) - log10(step).rounded()) < 1e-9, "span \(span): \(step) is a power of ten")
        }
        #expect(FormulaSlider.step(min: 0, max: 4) == 0.01 && FormulaSlider.step(min: 0, max: 200) == 1)
        for (low, high) in [(0.0, 1e-323), (0, 0), (1, 0), (-Double.infinity, 0), (0, .nan), (-1e308, 1e308)] {
            #expect(FormulaSlider.step(min: low, max: high).isFinite, "\(low)..\(high)")
        }
    }

    @Test func slidersAreLimitedToACellsParameters() {
        let many = (0...32).map { "$s\($0)(0..1 = 0)" }.joined(separator: " + ")
        let error = syntaxError(many)
        #expect(error?.message == "a formula has at most 32 sliders")
        #expect(error?.position == many.range(of: "$s32")!.lowerBound.utf16Offset(in: many))
    }

    // MARK: Limits and hostile lines

    @Test func theLimitsAreCheckedWhereTheyAreCrossed() {
        let limits = Notebook.limits
        #expect(limits.maxFormulaLength == 2_000 && limits.maxFormulaNesting == 32 && limits.maxFormulaNodes == 500)
        // Nesting: 32 levels are fine, the 33rd "(" is refused where it stands.
        #expect(syntaxError(String(repeating: "(", count: 32) + "1" + String(repeating: ")", count: 32)) == nil)
        let parens = syntaxError(String(repeating: "(", count: 33) + "1" + String(repeating: ")", count: 33))
        #expect(parens == FormulaError(position: 32, message: "nested too deeply: at most 32 parentheses, calls and ?: branches inside one another"))
        #expect(syntaxError(String(repeating: "abs(", count: 33) + "1" + String(repeating: ")", count: 33))?.position == 4 * 32 + 3)
        #expect(syntaxError(String(repeating: "1 ? ", count: 33) + "1" + String(repeating: " : 0", count: 33))?.position == 4 * 32 + 2)
        // Chains are loops, not nesting: 150 else-branches, 150 signs, 100 powers are fine.
        #expect(syntaxError(String(repeating: "0 ? 1 : ", count: 150) + "2") == nil)
        #expect(syntaxError(String(repeating: "-", count: 150) + "1") == nil)
        #expect(syntaxError(String(repeating: "1 ^ ", count: 100) + "1") == nil)
        // Parts: 1+1+… has a part per number and per +; the 501st (a + at offset 499) is refused.
        let parts = syntaxError(String(repeating: "1+", count: 300) + "1")
        #expect(parts?.position == 499)
        #expect(parts?.message == "the formula has more than 500 parts (numbers, names, operators, calls); split it into several formula cells, each reading the one before")
        // Length: 2,001 characters are refused at offset 2,000 before anything is read.
        let long = syntaxError(String(repeating: " ", count: 2_000) + "1")
        #expect(long == FormulaError(position: 2_000, message: "a formula is at most 2000 characters; this one has 2001. Split it into several formula cells, each reading the one before"))
        #expect(syntaxError(String(repeating: " ", count: 1_999) + "1") == nil)
    }

    @Test func hostileLinesGetAClearErrorNotACrash() {
        let megabyte = 1 << 20
        // At the door: the length.
        for line in [String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
                     String(repeating: "1+", count: megabyte / 2) + "1",
                     String(repeating: "é", count: megabyte)] {
            #expect(syntaxError(line)?.position == 2_000)
        }
        // With the length limit lifted, the other limits still hold, before any deep recursion.
        var lifted = Notebook.limits
        lifted.maxFormulaLength = 1 << 30
        #expect(syntaxError(String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000), limits: lifted)?.position == 32)
        #expect(syntaxError(String(repeating: "mix(", count: 10_000), limits: lifted)?.position == 4 * 32 + 3)
        #expect(syntaxError(String(repeating: "1+", count: megabyte / 2) + "1", limits: lifted)?.position == 499)
        #expect(syntaxError(String(repeating: "-", count: megabyte) + "1", limits: lifted)?.position != nil)
        #expect(syntaxError(String(repeating: "2^", count: megabyte / 2) + "2", limits: lifted)?.position != nil)
        #expect(syntaxError(String(repeating: "1?", count: megabyte / 2) + "1", limits: lifted)?.position == 2 * 32 + 1)
        #expect(syntaxError(String(repeating: "$", count: megabyte), limits: lifted)?.position == 1)
        #expect(syntaxError(String(repeating: "é", count: 10), limits: lifted)?.position == 0)
    }
}
