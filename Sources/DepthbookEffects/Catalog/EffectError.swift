import DepthbookDocument

/// Why an effect or a notebook cell could not render. Every message tells the user what to change.
public enum EffectError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The photo lacks a plane the cell needs (`photo.skin`, `photo.disparity`, ...).
    case missingPlane(String)
    case unknownEffect(String)
    case unknownParameter(effect: String, name: String)
    case badParameter(effect: String, name: String, message: String)
    /// An input slot is missing, unknown, or fed the wrong kind of thing.
    case badInput(effect: String, message: String)
    case unknownCell(String)
    /// The cell exists but has nothing to render (a note, an unsupported kind).
    case notRenderable(String)
    /// The cell is not a step of an animated effect, so it has no frames to loop (no GIF).
    case notAnimated(String)
    case badRequest(String)
    /// A formula cell's line does not parse, names what is not there, or mixes types: where, and why.
    case badFormula(cell: String, FormulaError)
    case cancelled
    /// The engine refused (a message from below, passed on).
    case engine(String)

    /// The parameter the error names, when one is to blame.
    public var parameterName: String? {
        switch self {
        case .unknownParameter(_, let name), .badParameter(_, let name, _): return name
        default: return nil
        }
    }

    /// Whether the failure is the photo's (it lacks what the effect needs) rather than the request's.
    public var isUnsupportedByPhoto: Bool {
        if case .missingPlane = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .missingPlane(let plane):
            return "this photo has no \(plane) plane (\(EffectError.planeHelp(plane))); open a photo that has one"
        case .unknownEffect(let id): return "there is no effect \"\(id)\""
        case let .unknownParameter(effect, name): return "\(effect) has no parameter \"\(name)\""
        case let .badParameter(effect, name, message): return "\(effect).\(name): \(message)"
        case let .badInput(effect, message): return "\(effect): \(message)"
        case .unknownCell(let id): return "there is no cell \"\(id)\""
        case .notRenderable(let id): return "cell \"\(id)\" has no image to render"
        case .notAnimated(let id):
            return "cell \"\(id)\" does not animate; only steps of an animated effect (\(EffectCatalog.descriptions.filter(\.animated).map(\.id).joined(separator: ", "))) export as GIF"
        case .badRequest(let message): return message
        case let .badFormula(cell, error): return "cell \"\(cell)\": formula \(error)"
        case .cancelled: return "render cancelled"
        case .engine(let message): return message
        }
    }

    private static func planeHelp(_ plane: String) -> String {
        switch plane {
        case "photo.disparity", "photo.depth":
            return "it was taken without depth, and none could be estimated (no person found, or the person matte's model is not installed): add a depth map (an image where brighter is nearer) with the photo cell's depth-map upload"
        case "measured depth":
            return "its depth is estimated from the person matte (the person in front of a guessed ground and background), which is no shape a 3-D view can show"
        case "photo.portraitEffectsMatte": return "portrait mattes come only with people in portrait mode"
        case "photo.personMatte": return "the learned person matte needs its model files (scripts/install-models.sh) and a photo without a portrait matte"
        case "photo.skin", "photo.hair", "photo.teeth", "photo.glasses", "photo.sky":
            return "semantic mattes come only with portrait captures of people"
        default: return "not in this file"
        }
    }
}
