import DepthbookEngine

/// What an auxiliary image is, from its URN (HEIF `auxC`) or its Apple XMP (JPEG MPF images).
enum AuxiliaryKind: Equatable, Sendable {
    case depth
    case matte(MatteKind)
    case hdrGainMap
    case alpha
    case other(String)

    static let depthURNs: Set<String> = ["urn:mpeg:hevc:2015:auxid:2", "urn:mpeg:mpegB:cicp:systems:auxiliary:depth"]
    static let alphaURNs: Set<String> = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]

    /// The URN Apple uses for each matte, in HEIC `auxC` boxes and (Depthbook's writer) JPEG XMP.
    static func urn(for matte: MatteKind) -> String {
        switch matte {
        case .portraitEffectsMatte: return "urn:com:apple:photo:2018:aux:portraiteffectsmatte"
        case .skin: return "urn:com:apple:photo:2019:aux:semanticskinmatte"
        case .hair: return "urn:com:apple:photo:2019:aux:semantichairmatte"
        case .teeth: return "urn:com:apple:photo:2019:aux:semanticteethmatte"
        case .glasses: return "urn:com:apple:photo:2020:aux:semanticglassesmatte"
        case .sky: return "urn:com:apple:photo:2021:aux:semanticskymatte"
        }
    }

    /// Classifies a URN. Apple's matte URNs are matched by their final word so that a later year's
    /// URN for the same matte (`...:2021:aux:semanticskymatte`, say) is still recognised.
    init(urn: String) {
        let lower = urn.lowercased()
        if AuxiliaryKind.depthURNs.contains(urn) {
            self = .depth
        } else if AuxiliaryKind.alphaURNs.contains(urn) {
            self = .alpha
        } else if lower.hasSuffix("hdrgainmap") {
            self = .hdrGainMap
        } else if lower.hasSuffix(":portraiteffectsmatte") {
            self = .matte(.portraitEffectsMatte)
        } else if lower.hasSuffix(":semanticskinmatte") {
            self = .matte(.skin)
        } else if lower.hasSuffix(":semantichairmatte") {
            self = .matte(.hair)
        } else if lower.hasSuffix(":semanticteethmatte") {
            self = .matte(.teeth)
        } else if lower.hasSuffix(":semanticglassesmatte") {
            self = .matte(.glasses)
        } else if lower.hasSuffix(":semanticskymatte") {
            self = .matte(.sky)
        } else {
            self = .other(urn)
        }
    }

    /// Classifies an MPF image by its XMP, as Apple's portrait JPEGs describe them.
    ///
    /// The portrait matte says `apdi:AuxiliaryImageType=depth` with subtype `portraiteffectsmatte`: the
    /// subtype wins. Semantic mattes carry their URN as the type.
    init?(appleXMP xmp: XMPDocument) {
        if xmp.uses(XMPNamespace.hdrGainMap) { self = .hdrGainMap; return }
        let type = xmp.text(XMPNamespace.apdi, "AuxiliaryImageType")
        let subtype = xmp.text(XMPNamespace.apdi, "AuxiliaryImageSubType")
        if let subtype, !subtype.isEmpty {
            if case .matte(let m) = AuxiliaryKind(urn: subtype.contains(":") ? subtype : "urn:" + subtype) {
                self = .matte(m); return
            }
        }
        if xmp.uses(XMPNamespace.portraitEffectsMatte) { self = .matte(.portraitEffectsMatte); return }
        guard let type else { return nil }
        switch type.lowercased() {
        case "disparity", "depth": self = .depth
        default: self = AuxiliaryKind(urn: type)
        }
    }

    /// The kind name used in `Photo.auxiliary` and `depthbook inspect`.
    var name: String {
        switch self {
        case .depth: return "depth"
        case .matte(let m): return m.rawValue
        case .hdrGainMap: return "hdrGainMap"
        case .alpha: return "alpha"
        case .other: return "other"
        }
    }
}
