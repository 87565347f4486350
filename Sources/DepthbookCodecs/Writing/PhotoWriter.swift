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
        head += try primaryXMPSegments(photo, extraXMP: extraXMP)
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

    /// The primary XMP segments. When everything fits one segment, one packet; otherwise the caller's extra
    /// properties go to extended XMP (Adobe's split across APP1 segments, named by the MD5 of the packet).
    static func primaryXMPSegments(_ photo: Photo, extraXMP: String?) throws -> [UInt8] {
        let (own, extra) = try primaryXMPProperties(photo, extraXMP: extraXMP)
        let whole = XMPWriter.packet(own + extra)
        if JPEGStructure.xmpSignature.count + whole.utf8.count <= JPEGSegmentInserter.maxPayload {
            return try JPEGSegmentInserter.xmpSegment(whole)
        }
        let extended = Array(XMPWriter.packet(extra).utf8)
        let guid = MD5.hex(extended)
        var out = try JPEGSegmentInserter.xmpSegment(XMPWriter.packet(own + [.text(XMPNamespace.xmpNote, "HasExtendedXMP", guid)]))
        let chunkSize = JPEGSegmentInserter.maxPayload - JPEGStructure.extendedXMPSignature.count - 32 - 8
        for offset in stride(from: 0, to: extended.count, by: chunkSize) {
            var w = ByteWriter()
            w.append(JPEGStructure.extendedXMPSignature + Array(guid.utf8))
            w.u32(UInt32(extended.count))
            w.u32(UInt32(offset))
            w.append(extended[offset..<min(offset + chunkSize, extended.count)])
            out += try JPEGSegmentInserter.segment(app: 1, payload: w.bytes)
        }
        return out
    }

    /// The photo's own properties (minus what no longer applies) with its face regions in upright pixels,
    /// and the caller's extra properties (which replace same-named ones).
    static func primaryXMPProperties(_ photo: Photo, extraXMP: String?) throws -> (own: [XMPProperty], extra: [XMPProperty]) {
        // Regions are rewritten upright; Google's depth and containers describe bytes this file does not have.
        let dropped: Set<String> = [XMPNamespace.mwgRegions, XMPNamespace.gDepth, XMPNamespace.gImage, XMPNamespace.ddDevice]
        var props: [XMPProperty] = []
        if let original = photo.xmp, let doc = try? XMPDocument(original) {
            props = doc.properties.filter { !dropped.contains($0.namespace) && !($0.namespace == XMPNamespace.xmpNote && $0.name == "HasExtendedXMP") }
        }
        var extraProperties: [XMPProperty] = []
        if let extraXMP {
            extraProperties = try XMPDocument(extraXMP).properties
            let replaced = Set(extraProperties.map { $0.namespace + "\u{0}" + $0.name })
            props = props.filter { !replaced.contains($0.namespace + "\u{0}" + $0.name) }
        }
        if !photo.faces.isEmpty { props.append(faceRegions(photo.faces, width: photo.width, height: photo.height)) }
        return (props, extraProperties)
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
