import DepthbookEngine

/// A synthetic scene: a pinhole camera, an optional person, props at known distances, and how the simulated
/// phone records it (which mattes, what depth accuracy, where its depth sensor drops out).
struct SampleScene: Sendable {
    var id: String
    var title: String
    var summary: String
    /// Full-size upright image dimensions (multiples of 4).
    var width: Int
    var height: Int
    /// Focal length in pixels divided by the image's long side (0.78 is a phone's wide camera).
    var focalPerLongSide: Double
    var person: PersonModel?
    /// Props, the last of them a wall or sky every ray hits.
    var props: [SceneProp]
    /// Unit vector from surfaces towards the light.
    var light: Vec3
    var accuracy: DepthAccuracy
    /// Stored disparity = `disparityScale / depth`: 1 for absolute accuracy (1/m), any other factor for relative.
    var disparityScale: Double
    /// Circular sensor drop-outs in normalised image coordinates (x, y, radius as a fraction of the width).
    var dropouts: [(x: Double, y: Double, radius: Double)]
    /// The mattes this "camera" delivers; a kind left out is absent from the photo, not empty.
    var mattes: [MatteKind]
    var seed: UInt64

    /// The nearest surface along direction `d` (`d.z == 1`).
    func trace(_ d: Vec3) -> SurfaceSample {
        var best = person?.trace(d, light: light)
        for prop in props {
            guard let s = prop.trace(d, light: light, seed: seed) else { continue }
            if s.depth < (best?.depth ?? .infinity) { best = s }
        }
        return best ?? SurfaceSample(depth: .infinity, color: Vec3(0, 0, 0), label: .sky, isDepthHole: true)
    }

    /// Whether a matte of `kind` covers a surface labelled `label`.
    static func matte(_ kind: MatteKind, covers label: SurfaceLabel) -> Bool {
        switch kind {
        case .portraitEffectsMatte: return label.isPerson
        case .skin: return label == .skin
        case .hair: return label == .hair
        case .teeth: return label == .teeth
        case .glasses: return label == .glasses
        case .sky: return label == .sky
        }
    }
}

/// What a sample's scene is known to contain: the ground truth tests and notebooks may rely on.
public struct SampleTruth: Sendable, Equatable {
    /// Distance from the camera to the front of the face, metres (nil without a person).
    public var subjectDepth: Double?
    /// The face centre in normalised upright image coordinates (0...1), nil without a person.
    public var faceCenter: (x: Double, y: Double)?
    /// Stored disparity = `disparityScale / depth`.
    public var disparityScale: Double
    public var accuracy: DepthAccuracy
    /// The nearest depth, metres, of each named prop in front of the background.
    public var propDepths: [String: Double]
    /// Depth of the farthest surface (wall or sky), metres.
    public var backgroundDepth: Double

    public static func == (a: SampleTruth, b: SampleTruth) -> Bool {
        a.subjectDepth == b.subjectDepth && a.faceCenter?.x == b.faceCenter?.x && a.faceCenter?.y == b.faceCenter?.y
            && a.disparityScale == b.disparityScale && a.accuracy == b.accuracy && a.propDepths == b.propDepths
            && a.backgroundDepth == b.backgroundDepth
    }
}
