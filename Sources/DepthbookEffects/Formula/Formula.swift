import DepthbookDocument
import DepthbookEngine
import Foundation

/// A slider a formula declares with `$name(min..max = default)`: one of the formula cell's parameters.
public struct FormulaSlider: Sendable, Equatable {
    public let name: String
    public let min: Double
    public let max: Double
    public let defaultValue: Double
    /// Where its declaration (`$`) starts in the formula.
    public let position: Int

    public init(name: String, min: Double, max: Double, defaultValue: Double, position: Int) {
        self.name = name
        self.min = min
        self.max = max
        self.defaultValue = defaultValue
        self.position = position
    }

    /// A slider's step: a power of ten, about a hundredth of the range (0.01 for 0..4, 1 for 0..200).
    public var step: Double { Self.step(min: min, max: max) }

    /// The step for a range, computed without a loop: the range comes from a client, and a loop that
    /// multiplies towards a subnormal or infinite hundredth never ends. The parser refuses ranges
    /// `isSteppable` rejects; a range that slips through still gets a finite step.
    public static func step(min: Double, max: Double) -> Double {
        let target = (max - min) / 100
        guard target.isNormal, target > 0 else { return 1 }
        var step = Foundation.pow(10, Foundation.floor(Foundation.log10(target)))
        // log10 may round across a power of ten: one correction each way.
        if step > target { step /= 10 }
        if step * 10 <= target { step *= 10 }
        return step.isNormal ? step : 1
    }

    /// Whether a slider over min...max can be stepped: finite bounds and a finite span of at least
    /// `minimumSpan`, so a hundredth of it is a normal number (a range of 1e-323 once made the step loop
    /// spin forever).
    public static func isSteppable(min: Double, max: Double) -> Bool {
        let span = max - min
        return min.isFinite && max.isFinite && span.isFinite && span >= minimumSpan
    }

    /// The narrowest range a slider may have.
    public static let minimumSpan = 1e-300

    /// The slider as the page's controls show a step's number parameters (`effects` request shape).
    public var parameter: EffectParameter {
        .number(name, name, min...max, default: defaultValue, step: step,
                doc: "A slider of this formula: $\(name)(\(EffectParameter.shown(min))..\(EffectParameter.shown(max)) = \(EffectParameter.shown(defaultValue))).")
    }
}

/// A formula cell's line, checked against a notebook: what the page needs to show it (its sliders, what it
/// reads, whether it makes an image or a mask). See docs/formulas.md for the language.
public struct Formula: Sendable, Equatable {
    public let text: String
    /// Its sliders in the order they are declared.
    public let sliders: [FormulaSlider]
    /// What it reads: photo planes (`photo.disparity`; `subject` reads `photo.disparity`) and cells, each once.
    public let references: [String]
    /// `.image` or `.plane` (a mask); nil when it reads a cell whose output is known only once it renders.
    public let output: EffectInput.Kind?
    /// The line as the parser left it: what a render compiles, so the line is parsed once, when it is checked.
    let parsed: ParsedFormula

    /// Parses `text` as the formula of a cell of `notebook`: names must be planes or cells above `cell` (every cell
    /// of the notebook when `cell` is nil or not in it: a cell about to be added at the end). Throws the first
    /// error with its position.
    public static func parse(_ text: String, in notebook: Notebook, before cell: String? = nil) throws(FormulaError) -> Formula {
        let position = cell.flatMap { id in notebook.cells.firstIndex { $0.id == id } } ?? notebook.cells.count
        return try parse(text, scope: FormulaScope(notebook, before: position))
    }

    static func parse(_ text: String, scope: FormulaScope) throws(FormulaError) -> Formula {
        let parsed = try FormulaParser.parsed(text)
        let type = try FormulaTypeCheck.check(parsed, in: scope)
        let output: EffectInput.Kind? = type.channels == .three ? .image : type.channels == .one ? .plane : nil
        return Formula(text: text, sliders: parsed.sliders, references: parsed.references, output: output, parsed: parsed)
    }

    /// The same as `parse`, as a value for the page: the sliders, or the error and its position.
    public static func analyse(_ text: String, in notebook: Notebook, before cell: String? = nil) -> FormulaAnalysis {
        do {
            let formula = try parse(text, in: notebook, before: cell)
            return FormulaAnalysis(formula: formula, error: nil)
        } catch {
            return FormulaAnalysis(formula: nil, error: error)
        }
    }
}

/// A formula line as typed, checked against a notebook: the formula, or why it was refused (the server answers
/// `checkFormula` with it, docs/formulas.md).
public struct FormulaAnalysis: Sendable, Equatable {
    public let formula: Formula?
    public let error: FormulaError?
}
