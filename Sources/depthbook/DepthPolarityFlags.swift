import ArgumentParser
import DepthbookCodecs

/// `--depth-brighter-nearer` / `--depth-brighter-farther`: which way a separate depth map's grey runs.
/// Without either, the reader detects it from the map and the photo.
struct DepthPolarityFlags: ParsableArguments {
    @Flag(name: .customLong("depth-brighter-nearer"), help: "The separate depth map is brighter where things are nearer (default: detected).")
    var brighterNearer = false

    @Flag(name: .customLong("depth-brighter-farther"), help: "The separate depth map is brighter where things are farther (default: detected).")
    var brighterFarther = false

    func validate() throws {
        if brighterNearer && brighterFarther {
            throw ValidationError("give at most one of --depth-brighter-nearer and --depth-brighter-farther")
        }
    }

    /// The stated polarity, or `.detect`.
    var polarity: DepthMapPolarity {
        if brighterNearer { return .brighterIsNearer }
        if brighterFarther { return .brighterIsFarther }
        return .detect
    }
}
