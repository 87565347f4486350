/// Why a render stopped.
public enum RenderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The render was superseded: the cancellation check said stop at a stage boundary.
    case cancelled
    /// A node was built with inputs of the wrong kind or count.
    case badInputs(filter: String, message: String)
    /// A parameter is outside its documented range.
    case badParameter(filter: String, name: String, message: String)
    /// The photo lacks a plane a source node needs (no depth, no such matte).
    case missingPlane(String)
    /// The requested size or region is empty or absurd.
    case badTarget(String)

    public var description: String {
        switch self {
        case .cancelled: return "render cancelled"
        case let .badInputs(filter, message): return "\(filter): \(message)"
        case let .badParameter(filter, name, message): return "\(filter).\(name): \(message)"
        case let .missingPlane(plane): return "the photo has no \(plane)"
        case let .badTarget(message): return "bad render target: \(message)"
        }
    }
}
