/// Every effect a notebook step may name, in the order the page lists them: the building blocks of the
/// demos first, then the named recipes of the talks.
enum EffectCatalog {
    static let effects: [any Effect.Type] = [
        // Building blocks, one cell each, as the notebooks walk through them.
        ResizeEffect.self, ThresholdEffect.self, ClosingEffect.self, FeatherEffect.self, MaskGammaEffect.self,
        ApplyMaskEffect.self, NoirEffect.self, ExposureEffect.self, ColorControlsEffect.self, VibranceEffect.self,
        DiscBlurEffect.self, GaussianBlurEffect.self, GammaEffect.self, MaximumComponentEffect.self,
        BlendWithMaskEffect.self, BackgroundImageEffect.self, FillBehindSubjectEffect.self,
        // The talks' effects as named recipes.
        DepthThresholdEffect.self, DepthThresholdNoirEffect.self, MatteSeparationEffect.self,
        ScaleSubjectEffect.self, BigHeadEffect.self, MarchingEffect.self,
        MakeupEffect.self, HairColorEffect.self, TeethWhiteningEffect.self, GlassesTintEffect.self,
        FaceDepthMaskEffect.self, BackdropEffect.self,
        // Depth as a third dimension (2017 editing and capture talks, 2018 point clouds).
        TapBlendMaskEffect.self, BackgroundEffect.self, DarkenByDisparityEffect.self, DepthOfFieldEffect.self,
        DollyZoomEffect.self, PointCloudEffect.self, WiggleEffect.self, LensCorrectionEffect.self,
        DepthUpsamplingEffect.self, ZoomCropEffect.self,
    ]

    private static let byID: [String: any Effect.Type] = Dictionary(
        effects.map { ($0.description.id, $0) }, uniquingKeysWith: { first, _ in first })

    static func effect(_ id: String) -> (any Effect.Type)? { byID[id] }

    static var descriptions: [EffectDescription] { effects.map { $0.description } }
}
