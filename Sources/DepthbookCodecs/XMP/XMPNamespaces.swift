/// Namespace URIs of the XMP schemas Depthbook reads and writes.
enum XMPNamespace {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let x = "adobe:ns:meta/"
    static let xml = "http://www.w3.org/XML/1998/namespace"
    /// Apple's pixel data info: how an auxiliary image's stored integers map to floats, and what it is.
    static let apdi = "http://ns.apple.com/pixeldatainfo/1.0/"
    /// Apple's depth data: accuracy, filtering, quality and camera calibration.
    static let depthData = "http://ns.apple.com/depthData/1.0/"
    static let portraitEffectsMatte = "http://ns.apple.com/portraitEffectsMatte/1.0/"
    static let semanticSegmentationMatte = "http://ns.apple.com/semanticSegmentationMatte/1.0/"
    static let hdrGainMap = "http://ns.apple.com/HDRGainMap/1.0/"
    static let mwgRegions = "http://www.metadataworkinggroup.com/schemas/regions/"
    static let stArea = "http://ns.adobe.com/xmp/sType/Area#"
    static let stDim = "http://ns.adobe.com/xap/1.0/sType/Dimensions#"
    static let xmpNote = "http://ns.adobe.com/xmp/note/"
    /// Google's Lens Blur depth map (depth stored in XMP, split over extended XMP segments).
    static let gDepth = "http://ns.google.com/photos/1.0/depthmap/"
    static let gImage = "http://ns.google.com/photos/1.0/image/"
    /// Android Dynamic Depth 1.0.
    static let ddDevice = "http://ns.google.com/photos/dd/1.0/device/"
    static let ddContainer = "http://ns.google.com/photos/dd/1.0/container/"
    static let ddItem = "http://ns.google.com/photos/dd/1.0/item/"
    static let ddCamera = "http://ns.google.com/photos/dd/1.0/camera/"
    static let ddDepthMap = "http://ns.google.com/photos/dd/1.0/depthmap/"
    /// Depthbook's own fields (where depth holes live in a written 8-bit map).
    static let depthbook = "http://ns.depthbook.dev/1.0/"
}
