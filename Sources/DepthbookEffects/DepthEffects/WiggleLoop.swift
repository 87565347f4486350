import DepthbookDocument
import DepthbookProtocol
import DepthbookEngine

/// The whole "Wiggle Me" loop, rendered by the engine frame by frame: what `depthbook wiggle` encodes as
/// an animated GIF. Each frame is the `wiggle` effect at an evenly spaced phase, so the loop closes.
public enum WiggleLoop {
    /// `count` RGB frames `width` pixels wide (the height keeps the photo's aspect ratio).
    /// `parameters` are the `wiggle` effect's (amplitude, vertical, point); `phase` is set per frame.
    public static func frames(photo: Photo, photoID: String, count: Int, width: Int,
                              parameters: [String: ParameterValue] = [:]) throws -> [RGBImage8] {
        let (frames, widths) = (Limits.studio.exportFrames, Limits.studio.loopWidth)
        guard frames.contains(count) else { throw EffectError.badRequest("the loop needs \(frames) frames, not \(count)") }
        guard widths.contains(width) else { throw EffectError.badRequest("the frame width must be \(widths) pixels, not \(width)") }
        guard photo.depth != nil else { throw EffectError.missingPlane("photo.disparity") }
        if parameters["phase"] != nil { throw EffectError.badRequest("the loop sets \"phase\" itself") }
        try ParameterCheck.check(parameters, effect: WiggleEffect.description.id)
        let p = ResolvedParameters(parameters, for: WiggleEffect.description)
        let cache = RenderCache(byteLimit: 256 << 20)
        let evaluator = Evaluator(context: RenderContext(cache: cache))
        let context = EffectContext(photo: photo, photoID: photoID, evaluator: evaluator, statistics: StatisticsCache(store: cache), uploads: nil)
        let image = try Primitives.photo(context, .image), disparity = try Primitives.photo(context, .disparity)
        let height = max(1, Int((Double(width) * Double(photo.height) / Double(max(1, photo.width))).rounded()))
        let target = RenderTarget(size: PixelSize(width: width, height: height))
        return try (0..<count).map { k in
            let node = try WiggleEffect.frame(image: image, disparity: disparity, phase: Double(k) / Double(count), p, context)
            return try evaluator.renderBytes(node, target)
        }
    }
}
