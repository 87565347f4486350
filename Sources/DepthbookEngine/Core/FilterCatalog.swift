/// Every engine filter's description and parameter table, for documentation, validation and the effect catalog.
public enum FilterCatalog {
    public static let all: [FilterInfo] = [
        PhotoSource.info, PlaneSource.info, Resample.info, AffineTransform.info, Crop.info, GuidedFilter.info,
        HoleFill.info, MatteForeground.info, GaussianBlur.info, BoxBlur.info, DiscBlur.info, MotionBlur.info, Morphology.info,
        PercentileThreshold.info, Normalize.info, Threshold.info, SRGBTransfer.info, Exposure.info, Gamma.info,
        ColorControls.info, Vibrance.info, ColorMatrix.info, ComponentExtremum.info, PhotoEffect.info,
        HexagonalPixellate.info, BlendWithMask.info, Composite.info, DepthDisparity.info, Identity.info, FormulaFilter.info,
    ]

    public static func info(named name: String) -> FilterInfo? { all.first { $0.name == name } }
}
