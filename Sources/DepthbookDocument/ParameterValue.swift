/// A value a notebook gives an effect parameter: a number, a choice, a switch or a point.
public enum ParameterValue: Sendable, Equatable, Hashable, Codable {
    case number(Double)
    case choice(String)
    case bool(Bool)
    /// Normalised upright image coordinates, 0...1.
    case point(x: Double, y: Double)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .choice(s) }
        else if let p = try? c.decode([Double].self), p.count == 2 { self = .point(x: p[0], y: p[1]) }
        else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a parameter is a number, a string, a boolean or an [x, y] point")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        case .choice(let s): try c.encode(s)
        case .bool(let b): try c.encode(b)
        case .point(let x, let y): try c.encode([x, y])
        }
    }

    public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
}
