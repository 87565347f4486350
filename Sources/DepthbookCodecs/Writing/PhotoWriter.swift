import DepthbookEngine

/// Writes photos so that their depth survives: a JPEG laid out as Apple's portrait JPEGs are.
///
/// Layout: the primary image (EXIF with orientation 1, since every plane is already upright; XMP with the
/// face regions and the caller's extra XMP; the ICC profile; an MPF index), then one Multi-Picture Format
/// image per plane: the depth map, then each matte, every one an 8-bit grey JPEG with Apple's XMP.
public enum PhotoWriter {
    /// A JPEG of `photo` with its depth and mattes as MPF images.
    ///
    /// - Parameters:
    ///   - quality: JPEG quality of the primary image (depth and mattes use at least 95).
    ///   - extraXMP: a complete XMP packet (`x:xmpmeta` or `rdf:RDF`) whose properties are added to the
    ///     primary image's XMP, e.g. the recipe that produced the image. Malformed XMP is refused.
    public static func jpegWithDepth(_ photo: Photo, quality: Int = 90, extraXMP: String? = nil) throws -> [UInt8] {
        var auxiliary: [[UInt8]] = []
        if let depth = photo.depth {
            let (jpeg, xmp) = try AuxiliaryImageEncoding.depth(depth, quality: quality)
            auxiliary.append(try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: jpeg))
        }
        for matte in photo.mattes {
            let (jpeg, xmp) = try AuxiliaryImageEncoding.matte(matte, quality: quality)
            auxiliary.append(try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: jpeg))
        }

        var head: [UInt8] = []
        if let exif = photo.exif, exif.starts(with: ExifBlock.header) {
            head += try JPEGSegmentInserter.segment(app: 1, payload: ExifBlock(bytes: exif).withUprightOrientation().bytes)
        }
        head += try JPEGSegmentInserter.xmpSegment(try primaryXMP(photo, extraXMP: extraXMP))
        if let icc = photo.iccProfile, !icc.isEmpty { head += try JPEGSegmentInserter.iccSegments(icc) }

        let primaryPixels = try JPEGEncoder.encode(photo.image, quality: quality)
        return try multiPicture(primaryPixels: primaryPixels, head: head, auxiliary: auxiliary)
    }

    /// Joins a primary JPEG (with `head` segments spliced in) and finished auxiliary JPEGs into one MPF file.
    static func multiPicture(primaryPixels: [UInt8], head: [UInt8], auxiliary: [[UInt8]]) throws -> [UInt8] {
        guard !auxiliary.isEmpty else { return try JPEGSegmentInserter.insert(head, into: primaryPixels) }

        // The MPF segment's size is known before its offsets, so the primary's length can be fixed first.
        let imageCount = 1 + auxiliary.count
        let mpfSegmentSize = 4 + MPFIndex.payloadSize(imageCount: imageCount)
        let placeholder = [UInt8](repeating: 0, count: mpfSegmentSize)
        let withPlaceholder = try JPEGSegmentInserter.insert(head + placeholder, into: primaryPixels)
        let mpfSegmentStart = mpfInsertionPoint(primaryPixels) + head.count
        let tiffOffset = mpfSegmentStart + 4 + 4  // marker, length, "MPF\0"

        var entries = [MPFIndex.Entry(attributes: MPFIndex.primaryAttributes, size: withPlaceholder.count, offset: 0)]
        var position = withPlaceholder.count
        for image in auxiliary {
            entries.append(MPFIndex.Entry(attributes: MPFIndex.undefinedAttributes, size: image.count, offset: position - tiffOffset))
            position += image.count
        }
        let mpf = try JPEGSegmentInserter.segment(app: 2, payload: MPFIndex(entries: entries).payload())
        guard mpf.count == mpfSegmentSize else { throw PhotoError.encodingFailed("the MPF index has an unexpected size") }

        var out = withPlaceholder
        out.replaceSubrange(mpfSegmentStart..<(mpfSegmentStart + mpfSegmentSize), with: mpf)
        out.reserveCapacity(position)
        for image in auxiliary { out += image }
        return out
    }

    /// Where `JPEGSegmentInserter.insert` puts segments in `jpeg` (after SOI and a leading APP0).
    private static func mpfInsertionPoint(_ jpeg: [UInt8]) -> Int {
        if jpeg.count > 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { return 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        return 2
    }

    /// The primary XMP: the photo's own properties (minus what no longer applies), its face regions in
    /// upright pixels, and the caller's extra properties.
    static func primaryXMP(_ photo: Photo, extraXMP: String?) throws -> String {
        // Regions are rewritten upright; Google's depth and containers describe bytes this file does not have.
        let dropped: Set<String> = [XMPNamespace.mwgRegions, XMPNamespace.gDepth, XMPNamespace.gImage, XMPNamespace.ddDevice]
        var props: [XMPProperty] = []
        if let original = photo.xmp, let doc = try? XMPDocument(original) {
            props = doc.properties.filter { !dropped.contains($0.namespace) && !($0.namespace == XMPNamespace.xmpNote && $0.name == "HasExtendedXMP") }
        }
        if let extraXMP {
            let extra = try XMPDocument(extraXMP)
            let replaced = Set(extra.properties.map { $0.namespace + "\u{0}" + $0.name })
            props = props.filter { !replaced.contains($0.namespace + "\u{0}" + $0.name) } + extra.properties
        }
        if !photo.faces.isEmpty { props.append(faceRegions(photo.faces, width: photo.width, height: photo.height)) }
        return XMPWriter.packet(props)
    }

    /// mwg-rs regions, normalised to the upright image.
    static func faceRegions(_ faces: [FaceRegion], width: Int, height: Int) -> XMPProperty {
        let rs = XMPNamespace.mwgRegions, area = XMPNamespace.stArea, dim = XMPNamespace.stDim
        let w = Double(width), h = Double(height)
        let list: [XMPValue] = faces.map { f in
            .structure([
                XMPProperty(namespace: rs, name: "Area", value: .structure([
                    .number(area, "x", f.centerX / w), .number(area, "y", f.centerY / h),
                    .number(area, "w", f.width / w), .number(area, "h", f.height / h),
                    .text(area, "unit", "normalized"),
                ])),
                .text(rs, "Type", f.type),
            ])
        }
        return XMPProperty(namespace: rs, name: "Regions", value: .structure([
            XMPProperty(namespace: rs, name: "AppliedToDimensions", value: .structure([
                .number(dim, "w", w), .number(dim, "h", h), .text(dim, "unit", "pixel"),
            ])),
            XMPProperty(namespace: rs, name: "RegionList", value: .array(list)),
        ]))
    }
}
