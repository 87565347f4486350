/// What a ray hit, as far as the mattes care: every matte of a sample is the coverage of some labels.
enum SurfaceLabel: UInt8, Sendable {
    /// Walls, floors, props: anything that is not the person and not the sky.
    case scenery
    case sky
    case skin
    case hair
    case teeth
    /// Frames and lenses: Apple's glasses matte covers both.
    case glasses
    case clothes
    /// Eye whites and irises: part of the person, not skin.
    case eye
    case lips
    /// The dark inside of an open mouth.
    case mouth
    case brow

    /// Whether the portrait effects matte covers this surface (everything of the person, glasses included).
    var isPerson: Bool {
        switch self {
        case .scenery, .sky: return false
        default: return true
        }
    }
}

/// The colour, depth and label one ray returns.
struct SurfaceSample {
    var depth: Double
    var color: Vec3
    var label: SurfaceLabel
    /// The depth sensor returns no measurement here (a specular glint, a light-absorbing surface).
    var isDepthHole: Bool
}
