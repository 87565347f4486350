/// The kinds of matte a portrait photo may carry.
public enum MatteKind: String, Sendable, Codable, CaseIterable {
    case portraitEffectsMatte
    case skin
    case hair
    case teeth
    case glasses
    case sky
}

/// A linear (not gamma-encoded) 0...1 matte aligned to the upright image, at its own resolution.
public struct Matte: Sendable, Equatable {
    public var kind: MatteKind
    public var plane: FloatPlane

    public init(kind: MatteKind, plane: FloatPlane) {
        self.kind = kind
        self.plane = plane
    }
}
