/// An auxiliary image the file carries that Depthbook lists but does not use as a plane (an HDR gain map, say).
public struct AuxiliaryImageInfo: Sendable, Equatable, Codable {
    public var kind: String
    public var urn: String?
    public var width: Int
    public var height: Int

    public init(kind: String, urn: String?, width: Int, height: Int) {
        self.kind = kind
        self.urn = urn
        self.width = width
        self.height = height
    }
}

/// A photo with every plane it carries, each aligned to the upright image at its own resolution.
///
/// Immutable by convention: loaders build it once; effects read it. What the file does not have is nil or
/// empty, never invented.
public struct Photo: Sendable {
    /// The upright image, sRGB-encoded 8-bit RGB (colour space noted in `colorSpace`).
    public var image: RGBImage8
    /// The EXIF orientation the file declared (already applied to every plane).
    public var orientation: Orientation
    /// "sRGB", "Display P3", or the ICC description when known.
    public var colorSpace: String
    public var depth: DepthData?
    public var mattes: [Matte]
    /// A learned subject matte (0...1) covering the whole upright photo at the network's own resolution
    /// (about 512 × 672), made by a segmentation network when the file carries no portrait matte. Nil when no
    /// network ran; the effects then take the subject from depth alone.
    public var personMatte: FloatPlane? = nil
    public var faces: [FaceRegion]
    public var auxiliary: [AuxiliaryImageInfo]
    /// Raw EXIF and XMP of the primary image, kept so a re-written file loses nothing.
    public var exif: [UInt8]?
    public var xmp: String?
    /// The primary image's ICC profile, kept so a re-written file shows the same colours.
    public var iccProfile: [UInt8]? = nil
    /// The full image's size when `image` holds a reduced copy (`reducedForPreviews`); nil when it is the full image.
    public internal(set) var fullSize: PixelSize? = nil

    public init(image: RGBImage8, orientation: Orientation = .up, colorSpace: String = "sRGB",
                depth: DepthData? = nil, mattes: [Matte] = [], faces: [FaceRegion] = [],
                auxiliary: [AuxiliaryImageInfo] = [], exif: [UInt8]? = nil, xmp: String? = nil) {
        self.image = image
        self.orientation = orientation
        self.colorSpace = colorSpace
        self.depth = depth
        self.mattes = mattes
        self.faces = faces
        self.auxiliary = auxiliary
        self.exif = exif
        self.xmp = xmp
    }

    /// The upright photo's size: the full image's, also when `image` holds a reduced copy.
    public var width: Int { fullSize?.width ?? image.width }
    public var height: Int { fullSize?.height ?? image.height }
    public var isReduced: Bool { fullSize != nil }

    public func matte(_ kind: MatteKind) -> Matte? { mattes.first { $0.kind == kind } }

    /// Calibration, when the depth data carries it.
    public var calibration: CameraCalibration? { depth?.calibration }
}
