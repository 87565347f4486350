import DepthbookEngine

/// The photo's planes a formula may name, and the notebook reference each one reads.
enum FormulaPlane: String, CaseIterable, Sendable {
    case image, disparity, depth, matte, skin, hair, teeth, glasses, sky, subject

    /// The notebook's name for what it reads (`photo.portraitEffectsMatte` for `matte`). `subject` is found
    /// from the disparity, so it needs what `photo.disparity` needs.
    var reference: String {
        switch self {
        case .image: return "photo.image"
        case .disparity, .subject: return "photo.disparity"
        case .depth: return "photo.depth"
        case .matte: return "photo.portraitEffectsMatte"
        case .skin, .hair, .teeth, .glasses, .sky: return "photo.\(rawValue)"
        }
    }

    /// What a formula sees: the image, one number (`subject`), or a plane.
    var type: FormulaType {
        switch self {
        case .image: return .image
        case .subject: return .number
        default: return .mask
        }
    }

    static let list = allCases.map(\.rawValue).joined(separator: ", ")
}

/// The functions of the formula language.
enum FormulaFunction: String, CaseIterable, Sendable {
    case mix, clamp, smoothstep, step, abs, min, max, pow, sqrt, exp, log, luma, rgb, gray

    /// How many arguments it takes.
    var arity: ClosedRange<Int> {
        switch self {
        case .abs, .sqrt, .exp, .log, .luma, .gray: return 1...1
        case .step, .pow: return 2...2
        case .min, .max: return 2...Int.max
        case .mix, .clamp, .smoothstep, .rgb: return 3...3
        }
    }

    /// The arguments as the documentation writes them.
    var signature: String {
        switch self {
        case .mix: return "mix(a, b, t)"
        case .clamp: return "clamp(x, low, high)"
        case .smoothstep: return "smoothstep(edge0, edge1, x)"
        case .step: return "step(edge, x)"
        case .abs: return "abs(x)"
        case .min: return "min(a, b, …)"
        case .max: return "max(a, b, …)"
        case .pow: return "pow(x, y)"
        case .sqrt: return "sqrt(x)"
        case .exp: return "exp(x)"
        case .log: return "log(x)"
        case .luma: return "luma(image)"
        case .rgb: return "rgb(r, g, b)"
        case .gray: return "gray(x)"
        }
    }

    /// The engine operation of the element-wise functions.
    var operation: FormulaProgram.Operation? {
        switch self {
        case .mix: return .mix
        case .clamp: return .clamp
        case .smoothstep: return .smoothstep
        case .step: return .step
        case .abs: return .abs
        case .min: return .minimum
        case .max: return .maximum
        case .pow: return .power
        case .sqrt: return .sqrt
        case .exp: return .exp
        case .log: return .log
        case .luma, .rgb, .gray: return nil
        }
    }

    static let list = allCases.map(\.rawValue).joined(separator: ", ")
}

/// What a formula value is: per pixel or one value for the whole picture, and 1 or 3 channels (or, for a
/// cell whose output is not known before it renders, either).
struct FormulaType: Sendable, Equatable {
    enum Channels: Sendable, Equatable { case one, three, unknown }
    var channels: Channels
    /// One value everywhere (a number, a slider, a colour made of them).
    var uniform: Bool

    static let number = FormulaType(channels: .one, uniform: true)
    static let color = FormulaType(channels: .three, uniform: true)
    static let mask = FormulaType(channels: .one, uniform: false)
    static let image = FormulaType(channels: .three, uniform: false)
    static let unknown = FormulaType(channels: .unknown, uniform: false)

    /// The type of an element-wise result: three channels if any operand has three, uniform if all are.
    static func joined(_ types: [FormulaType]) -> FormulaType {
        let channels: Channels = types.contains { $0.channels == .three } ? .three
            : types.contains { $0.channels == .unknown } ? .unknown : .one
        return FormulaType(channels: channels, uniform: types.allSatisfy(\.uniform))
    }

    /// "a mask", "an image", "a number", "a colour", for messages.
    var noun: String {
        switch (channels, uniform) {
        case (.one, true): return "a number"
        case (.three, true): return "a colour"
        case (.one, false): return "a mask"
        case (.three, false): return "an image"
        case (.unknown, _): return "a cell's output"
        }
    }
}
