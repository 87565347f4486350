import DepthbookEngine

/// Masks made from depth live at the depth map's resolution, four to six times coarser than the photo. Enlarged
/// as they are, their edges fall a few image pixels off the photo's, and a feather turns that into a rim (the
/// pug's bright halo, the glasses' temples cut in Backdrop). A guided filter (He, Sun & Tang) against the photo,
/// at the size rendered, moves each edge onto the photo's own; a feather, when the user asks for one, comes after.
enum EdgeFit {
    /// Regularisation of the fit: small enough to follow a face's or a dog's outline against its background,
    /// large enough that texture inside the subject (hair, a patterned shirt) does not carve holes.
    static let epsilon = 1e-3

    /// `mask` enlarged to the photo and fitted to its edges, clamped to 0...1. The window spans `reach` of the
    /// mask's own pixels (three: as far as an enlarged depth edge can lie from the photo's), and never more than
    /// 1 % of the photo's width, so a small photo's subject is not smoothed as a whole.
    /// `photoOnly`: `mask` is made from the photo alone (its subject), so the fit is pinned in the cache; the clamp
    /// after it is pointwise and fused into whatever reads it, so the fit is what a next frame finds.
    static func fitted(_ mask: Node, _ c: EffectContext, reach: Double = 3, epsilon: Double = epsilon,
                       photoOnly: Bool = false) throws -> Node {
        let size = PixelSize(width: c.photo.width, height: c.photo.height)
        let ratio = Double(size.width) / Double(max(1, mask.extent.width))
        let enlarged = try Primitives.resample(mask, to: size, .bilinear)
        let radius = min(100, max(1, min(reach * ratio, 0.01 * Double(size.width)).rounded()))
        let guide = try Primitives.photo(c, .image)
        return try Node(GuidedFilter(radius: radius, epsilon: epsilon), [enlarged, guide], pinnedInCache: photoOnly).applying(ClampUnit())
    }

    /// A learned matte's edge already lies within a pixel or two of its own on the photo's: a tighter, firmer fit
    /// than depth's. On the shared iPhone XS portrait near Apple's matte's edge: 0.0967 off with this, 0.0999 with
    /// depth's fit, 0.0970 enlarged without a fit (so hair and a soft outline are not stepped at 12 MP either).
    static func fittedLearned(_ matte: Node, _ c: EffectContext, photoOnly: Bool = false) throws -> Node {
        try fitted(matte, c, reach: 2, epsilon: 1e-4, photoOnly: photoOnly)
    }
}
