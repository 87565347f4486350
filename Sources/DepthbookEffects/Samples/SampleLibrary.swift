import DepthbookEngine
import DepthbookProtocol

/// The photos and backgrounds Depthbook generates itself, so a fresh install has something to play with
/// (real photos may not be bundled). Deterministic: the same id and size always give the same pixels.
public enum SampleLibrary {
    /// One bundled sample, as the page lists it.
    public struct Sample: Sendable, Equatable {
        public let id: String
        public let title: String
        public let summary: String
        /// Full-size upright dimensions.
        public let width: Int
        public let height: Int
        /// The plane references the sample carries (`photo.disparity`, `photo.skin`, ...).
        public let planes: [String]
    }

    /// One bundled background image for Backdrop.
    public struct Background: Sendable, Equatable {
        public let id: String
        public let title: String
    }

    public static var all: [Sample] {
        SampleScenes.all.map { s in
            Sample(id: s.id, title: s.title, summary: s.summary, width: s.width, height: s.height,
                   planes: ["photo.image", "photo.disparity", "photo.depth"] + s.mattes.map { "photo.\($0.rawValue)" })
        }
    }

    public static var backgrounds: [Background] { BackgroundLibrary.all.map { Background(id: $0.id, title: $0.title) } }

    /// The sample at full size (about 3 MP: a second or so in a release build).
    public static func photo(id: String) throws(SampleError) -> Photo {
        let scene = try scene(id)
        return SampleRenderer.render(scene, width: scene.width)
    }

    /// The same scene rendered `width` pixels wide (rounded down to a multiple of 4; at least 16), for tests and
    /// quick previews. Metric ground truth (`truth(id:)`) holds at every size.
    public static func photo(id: String, width: Int) throws(SampleError) -> Photo {
        guard Limits.studio.renderWidth.contains(width) else { throw .badSize(width) }
        return SampleRenderer.render(try scene(id), width: width)
    }

    /// What the scene is known to contain.
    public static func truth(id: String) throws(SampleError) -> SampleTruth {
        let s = try scene(id)
        let focal = s.focalPerLongSide * Double(max(s.width, s.height))
        var center: (x: Double, y: Double)?
        if let p = s.person {
            let cx = Double(s.width) / 2 + focal * p.headCenter.x / p.faceDepth
            let cy = Double(s.height) / 2 + focal * p.headCenter.y / p.faceDepth
            center = (cx / Double(s.width), cy / Double(s.height))
        }
        var depths = [String: Double]()
        for prop in s.props.dropLast() {
            if case .floor = prop.shape { continue }
            depths[prop.name] = prop.shape.nearestDepth
        }
        return SampleTruth(subjectDepth: s.person?.faceDepth, faceCenter: center, disparityScale: s.disparityScale,
                           accuracy: s.accuracy, propDepths: depths, backgroundDepth: s.props.last?.shape.nearestDepth ?? .infinity)
    }

    /// A bundled background at the given size.
    public static func background(id: String, width: Int, height: Int) throws(SampleError) -> RGBImage8 {
        let most = Limits.studio.renderWidth.upperBound
        guard width > 0, height > 0, width <= most, height <= most else { throw .badSize(max(width, height)) }
        // Painted by the filter a Backdrop render uses, so a sample background is the same picture.
        guard let filter = try? BackgroundFilter(id: id, size: PixelSize(width: width, height: height)),
              let image = try? Evaluator().renderBytes(Node(filter), RenderTarget(size: filter.size)) else {
            throw .unknownBackground(id)
        }
        return image
    }

    private static func scene(_ id: String) throws(SampleError) -> SampleScene {
        guard let s = SampleScenes.all.first(where: { $0.id == id }) else { throw .unknownSample(id) }
        return s
    }
}

/// Why a sample could not be made.
public enum SampleError: Error, Equatable, CustomStringConvertible {
    case unknownSample(String)
    case unknownBackground(String)
    case badSize(Int)

    public var description: String {
        switch self {
        case .unknownSample(let id):
            return "there is no sample \"\(id)\"; samples: \(SampleLibrary.all.map(\.id).joined(separator: ", "))"
        case .unknownBackground(let id):
            return "there is no background \"\(id)\"; backgrounds: \(SampleLibrary.backgrounds.map(\.id).joined(separator: ", "))"
        case .badSize(let n):
            let range = Limits.studio.renderWidth
            return "a sample size of \(n) px is out of range (\(range.lowerBound)...\(range.upperBound))"
        }
    }
}
