import DepthbookEngine

/// Masks cut from depth, given the subject's edge from the learned matte (issue 36, item 2). A depth map is four
/// to eight times coarser than the photo and blurs the subject into what touches it (the pug's bed, the chair
/// behind a head), so a threshold of it puts the subject's edge a few of its pixels off, and no fit to the photo's
/// edges brings it back. Where the photo has a fused subject (`SubjectFusion`: no portrait matte of its own, a
/// person matte depth agrees with) and the depth mask keeps that subject, the mask near the subject is the
/// subject: its own soft edge, and what the depth mask keeps within `reach` of it is dropped. Beyond that reach the
/// depth mask stands as it was (a higher cut still takes in the sofa across the room).
enum SubjectEdge {
    /// How far from the subject (in the depth map's pixels) the depth mask's edge may be the subject's own,
    /// blurred: a phone's or a depth app's map is smoothed over several of its pixels, and a threshold of it wanders
    /// that far around the matte's edge. On the shared iPhone XS portrait delivered with a grey map a quarter of
    /// the width, the `resized` mask sat 0.102 off Apple's matte near its edge with a reach of 2, 0.098 with 6, and
    /// its feather 0.084 and 0.079.
    static let reach = 6.0
    /// The share of the subject a depth mask must keep to be taken as a mask of it.
    static let agreement = 0.5

    /// `coarse` (a mask made from the photo's depth, at its own resolution) enlarged and fitted to the photo's
    /// edges (`EdgeFit`), with the subject's edge where it keeps the subject.
    static func fitted(_ coarse: Node, _ c: EffectContext) throws -> Node {
        try refined(coarse, enlarged: try EdgeFit.fitted(coarse, c), c)
    }

    /// `enlarged` (the caller's image-size version of `coarse`) with the subject's edge, when `coarse` reads the
    /// photo's depth, the photo has a fused subject and `coarse` keeps it; else `enlarged` as it is.
    static func refined(_ coarse: Node, enlarged: Node, _ c: EffectContext) throws -> Node {
        guard readsPhotoDepth(coarse, c), let fused = try SubjectFusion.fused(c) else { return enlarged }
        let subjectHere = try Primitives.resample(fused, to: coarse.extent, .bilinear)
        guard try keeps(coarse, subjectHere, c) else { return enlarged }
        let size = PixelSize(width: c.photo.width, height: c.photo.height)
        // The reach: the subject's region grown by `reach` at the coarse resolution, enlarged bilinearly (soft).
        let grown = try Primitives.threshold(subjectHere, 0.5).applying(Morphology(.dilate, shape: .disc, radius: reach))
        let near = try Primitives.resample(grown, to: size, .bilinear)
        let zero = try Node(PlaneSource(FloatPlane(width: 1, height: 1, channels: 1, samples: [0]), id: "zero", stretchedTo: size))
        let one = try Node(PlaneSource(FloatPlane(width: 1, height: 1, channels: 1, samples: [1]), id: "one", stretchedTo: size))
        // enlarged · (1 − near): what the depth mask keeps beyond the subject's reach ...
        let beyond = try Primitives.blend(zero, enlarged, mask: near)
        // ... joined with the subject: s + (1 − s) · beyond.
        return try Primitives.blend(one, beyond, mask: try SubjectPlane.mask(c))
    }

    /// Widest the masks are rendered to be compared: a share of the subject is the same at a quarter of a depth
    /// map's width. At its own width the mask's closing ran a second time for every change of a drag, beside the
    /// preview's (a third of the fitted mask's time at 736 px).
    static let comparedWidth = 192

    /// Whether `mask` (1 near) covers at least `agreement` of the subject (`subject`, at the mask's size): a
    /// cut behind the subject, not one that keeps only the background or the tip of a nose. Found once per pair.
    static func keeps(_ mask: Node, _ subject: Node, _ c: EffectContext) throws -> Bool {
        let key = NodeKey("subjectKept", inputs: [mask.key, subject.key])
        let kept = try c.statistics.kept(key) {
            let width = min(mask.extent.width, comparedWidth)
            let size = PixelSize(width: width, height: max(1, Int((Double(mask.extent.height * width) / Double(max(1, mask.extent.width))).rounded())))
            let m = try c.evaluator.render(mask, RenderTarget(size: size)), s = try c.evaluator.render(subject, RenderTarget(size: size))
            var inside = 0.0, covered = 0.0
            for (a, b) in zip(m.samples, s.samples) where b >= 0.5 {
                inside += 1
                if a >= 0.5 { covered += 1 }
            }
            return PixelBuffer(region: PixelRect(x: 0, y: 0, width: 1, height: 1), channels: 1,
                               samples: [Float(inside > 0 ? covered / inside : 0)])
        }
        return Double(kept.samples[0]) >= agreement
    }

    /// Whether `node` is made from this photo's depth or disparity (a threshold of it, closed, ...).
    static func readsPhotoDepth(_ node: Node, _ c: EffectContext) -> Bool {
        if let source = node.filter as? PhotoSource, source.photoID == c.photoID {
            return source.plane == .depth || source.plane == .disparity
        }
        return node.inputs.contains { readsPhotoDepth($0, c) }
    }
}
