import DepthbookEngine
import DepthbookTestSupport
import Foundation

@testable import DepthbookCodecs

/// Seed inputs for the codecs' fuzz campaigns, made by Depthbook's own writers (and by hand for the layouts it
/// only reads: Google's GDepth, Dynamic Depth and extended XMP). Every image is under 40 pixels a side, so a
/// whole-file read skips face detection and spends its time in the parsers.
enum CodecFuzzSeeds {
    /// Small limits: a mutated header can claim a large image, and the campaign should not spend its time
    /// allocating one.
    static let limits = DecodeLimits(maxPixels: 1 << 20, maxAuxiliaryPixels: 1 << 20, maxBytes: 1 << 20, maxMetadataBytes: 1 << 20)

    /// The GUID the hand-made extended XMP seed uses (any 32 hex digits).
    static let extendedGUID = "0123456789ABCDEF0123456789ABCDEF"

    static func image(_ width: Int, _ height: Int) -> RGBImage8 {
        RGBImage8(width: width, height: height, channels: 3,
                  samples: (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 3) })
    }

    static func plane(_ width: Int, _ height: Int, holes: Bool = false) -> FloatPlane {
        FloatPlane(width: width, height: height, channels: 1, samples: (0..<(width * height)).map { i in
            holes && i % 11 == 0 ? .nan : 0.5 + Float(i % width) / Float(width)
        })
    }

    static func calibration() -> CameraCalibration {
        var c = CameraCalibration(intrinsics: [30, 0, 12, 0, 30, 8, 0, 0, 1], referenceWidth: 24, referenceHeight: 16)
        c.extrinsics = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]
        c.pixelSize = 0.001
        c.lensDistortionCenter = (12.5, 8.25)
        c.lensDistortionLookupTable = [0, 0.001, 0.002, 0.004]
        c.inverseLensDistortionLookupTable = [0, -0.001, -0.002, -0.004]
        return c
    }

    /// A portrait: image, disparity with holes and a calibration, a portrait matte and a skin matte, two faces.
    static func photo() -> Photo {
        let depth = DepthData(kind: .disparity, map: plane(12, 8, holes: true), accuracy: .absolute, isFiltered: false,
                              quality: "high", calibration: calibration())
        var photo = Photo(image: image(24, 16), depth: depth,
                          mattes: [Matte(kind: .portraitEffectsMatte, plane: plane(12, 8)), Matte(kind: .skin, plane: plane(12, 8))],
                          faces: [FaceRegion(x: 4, y: 3, width: 8, height: 9), FaceRegion(x: 14, y: 2, width: 5, height: 6, type: "Pet")])
        photo.iccProfile = iccProfile(description: "Display P3")
        return photo
    }

    /// A recipe-like extra XMP packet, as an export writes beside the photo.
    static let recipeXMP = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:depthbook="http://ns.depthbook.dev/1.0/" depthbook:Cell="mask">
        <depthbook:Recipe>{"cells":[{"id":"photo","kind":"photo"}]}</depthbook:Recipe>
        <depthbook:Params><rdf:Bag><rdf:li>0.25</rdf:li><rdf:li>7</rdf:li></rdf:Bag></depthbook:Params>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """

    /// A minimal ICC profile: header, a tag table with one `desc` tag (or `mluc`, UTF-16), and its text.
    static func iccProfile(description: String, mluc: Bool = false) -> [UInt8] {
        var w = ByteWriter()
        w.append([UInt8](repeating: 0, count: 128))
        w.u32(1)
        let tagOffset = 144
        var tag = ByteWriter()
        if mluc {
            let units = Array(description.utf16)
            tag.append(Array("mluc".utf8)); tag.u32(0); tag.u32(1); tag.u32(12)
            tag.append(Array("enUS".utf8)); tag.u32(UInt32(units.count * 2)); tag.u32(28)
            for u in units { tag.u16(u) }
        } else {
            tag.append(Array("desc".utf8)); tag.u32(0); tag.u32(UInt32(description.utf8.count + 1))
            tag.append(Array(description.utf8) + [0])
        }
        w.u32(0x6465_7363); w.u32(UInt32(tagOffset)); w.u32(UInt32(tag.bytes.count))
        w.append(tag.bytes)
        return w.bytes
    }

    /// An APP1 EXIF segment whose IFD0 holds one entry: the orientation, in either byte order.
    static func exifSegment(orientation: Orientation, bigEndian: Bool = true) throws -> [UInt8] {
        var tiff = ByteWriter()
        let u16: (UInt16) -> [UInt8] = { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let u32: (UInt32) -> [UInt8] = { v in (bigEndian ? [24, 16, 8, 0] : [0, 8, 16, 24]).map { UInt8((v >> $0) & 0xFF) } }
        tiff.append(bigEndian ? [0x4D, 0x4D] : [0x49, 0x49])
        tiff.append(u16(42) + u32(8) + u16(1))
        tiff.append(u16(ExifBlock.orientationTag) + u16(3) + u32(1) + u16(UInt16(orientation.rawValue)) + [0, 0])
        tiff.append(u32(0))
        return try JPEGSegmentInserter.segment(app: 1, payload: ExifBlock.header + tiff.bytes)
    }

    /// An 8-bit grey JPEG of `plane` (values 0...1).
    static func greyJPEG(_ width: Int, _ height: Int) throws -> [UInt8] {
        let grey = Raster<UInt8>(width: width, height: height, channels: 1, samples: (0..<(width * height)).map { UInt8($0 * 9 % 256) })
        return try JPEGEncoder.encodeGray(grey, quality: 90)
    }

    /// The lossless (SOF3) depth maps other encoders wrote, committed for LosslessJPEGTests.
    static func losslessReferences() throws -> [[UInt8]] {
        let directory = PackageRoot.url.appendingPathComponent("Tests/DepthbookCodecsTests/References/LosslessJPEG")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
        return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Apple's portrait layout as `PhotoWriter` writes it: EXIF, XMP with faces and a recipe, ICC, MPF with depth
    /// and two mattes.
    static func portraitJPEG() throws -> [UInt8] {
        try PhotoWriter.jpegWithDepth(photo(), quality: 80, extraXMP: recipeXMP)
    }

    /// The portrait with an EXIF orientation of 6 (stored sideways), little-endian EXIF, before the MPF segment.
    static func rotatedPortraitJPEG() throws -> [UInt8] {
        try JPEGSegmentInserter.insert(try exifSegment(orientation: .right, bigEndian: false), into: try portraitJPEG())
    }

    /// A primary JPEG with one MPF image: a 16-bit lossless depth map (Apple's unfiltered depth) and its XMP.
    static func losslessDepthJPEG() throws -> [UInt8] {
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:depthData="http://ns.apple.com/depthData/1.0/">
            <apdi:AuxiliaryImageType>disparity</apdi:AuxiliaryImageType>
            <apdi:FloatMinValue>0.5</apdi:FloatMinValue><apdi:FloatMaxValue>2.5</apdi:FloatMaxValue>
            <apdi:IntMinValue>1</apdi:IntMinValue><apdi:IntMaxValue>65535</apdi:IntMaxValue>
            <depthData:Accuracy>relative</depthData:Accuracy><depthData:Filtered>false</depthData:Filtered>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let lossless = try losslessReferences().min { $0.count < $1.count } ?? []
        let depth = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: lossless)
        return try PhotoWriter.multiPicture(primaryPixels: try JPEGEncoder.encode(image(24, 16)), head: [], auxiliary: [depth])
    }

    /// Google's Lens Blur layout: the depth JPEG as base64 in the GDepth properties of the primary XMP.
    static func gdepthXMP() throws -> String {
        let g = XMPNamespace.gDepth
        return XMPWriter.packet([
            .text(g, "Format", "RangeInverse"), .number(g, "Near", 0.5), .number(g, "Far", 4), .text(g, "Units", "m"),
            .text(g, "Mime", "image/jpeg"), .text(g, "Data", Data(try greyJPEG(12, 8)).base64EncodedString()),
        ])
    }

    static func gdepthJPEG() throws -> [UInt8] {
        try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(try gdepthXMP()), into: try JPEGEncoder.encode(image(24, 16)))
    }

    /// Adobe's extended XMP: the main packet names a GUID; the GDepth packet follows in two APP1 chunks.
    static func extendedXMPJPEG() throws -> [UInt8] {
        let main = XMPWriter.packet([.text(XMPNamespace.xmpNote, "HasExtendedXMP", extendedGUID)])
        let extended = Array(try gdepthXMP().utf8)
        var segments = try JPEGSegmentInserter.xmpSegment(main)
        let half = extended.count / 2
        for (offset, chunk) in [(half, extended[half...]), (0, extended[..<half])] {
            var w = ByteWriter()
            w.append(JPEGStructure.extendedXMPSignature + Array(extendedGUID.utf8))
            w.u32(UInt32(extended.count))
            w.u32(UInt32(offset))
            w.append(chunk)
            segments += try JPEGSegmentInserter.segment(app: 1, payload: w.bytes)
        }
        return try JPEGSegmentInserter.insert(segments, into: try JPEGEncoder.encode(image(24, 16)))
    }

    /// Android's Dynamic Depth layout: a container directory in XMP, the depth JPEG appended after the primary.
    static func dynamicDepthXMP(depthLength: Int) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:Device="http://ns.google.com/photos/dd/1.0/device/"
          xmlns:Container="http://ns.google.com/photos/dd/1.0/container/" xmlns:Item="http://ns.google.com/photos/dd/1.0/item/"
          xmlns:Camera="http://ns.google.com/photos/dd/1.0/camera/" xmlns:DepthMap="http://ns.google.com/photos/dd/1.0/depthmap/">
        <Device:Container><Container:Directory><rdf:Seq>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:DataURI="primary_image"/></rdf:li>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Depth" Item:Length="\(depthLength)"
          Item:DataURI="android/depthmap"/></rdf:li>
        </rdf:Seq></Container:Directory></Device:Container>
        <Device:Cameras><rdf:Seq><rdf:li rdf:parseType="Resource"><Device:Camera rdf:parseType="Resource">
        <Camera:DepthMap DepthMap:Format="RangeLinear" DepthMap:Near="0.5" DepthMap:Far="4" DepthMap:Units="Meters"
          DepthMap:Mime="image/jpeg" DepthMap:DepthURI="android/depthmap"/>
        </Device:Camera></rdf:li></rdf:Seq></Device:Cameras>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    static func dynamicDepthJPEG() throws -> [UInt8] {
        let depth = try greyJPEG(12, 8)
        let xmp = dynamicDepthXMP(depthLength: depth.count)
        return try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: try JPEGEncoder.encode(image(24, 16))) + depth
    }

    /// Every whole-file seed: each must read as a photo with depth (`CodecFuzzSeedTests`).
    static func photoFiles() throws -> [(name: String, bytes: [UInt8])] {
        [
            ("portrait", try portraitJPEG()), ("rotated portrait", try rotatedPortraitJPEG()),
            ("lossless depth", try losslessDepthJPEG()), ("GDepth", try gdepthJPEG()),
            ("extended XMP", try extendedXMPJPEG()), ("Dynamic Depth", try dynamicDepthJPEG()),
        ]
    }

    /// A PhotoError as a fuzz outcome: its case and the start of its message (the rest is often the input's own text).
    static func outcome(_ error: PhotoError) -> String {
        switch error {
        case .empty: return "empty"
        case .unsupportedFormat(let m): return "unsupported: \(m.prefix(28))"
        case .truncated(let m): return "truncated: \(m.prefix(28))"
        case .corrupt(let m): return "corrupt: \(m.prefix(28))"
        case .tooLarge(let m): return "tooLarge: \(m.prefix(28))"
        case .badMetadata(let m): return "badMetadata: \(m.prefix(28))"
        case .depthAllHoles: return "allHoles"
        case .depthMismatch(let m): return "mismatch: \(m.prefix(28))"
        case .unreadable: return "unreadable"
        case .encodingFailed(let m): return "encodingFailed: \(m.prefix(28))"
        }
    }

    /// Runs `body`: its outcome, or the `PhotoError` it threw; any other error is left to the campaign as a failure.
    static func attempt(_ body: () throws -> String) throws -> String {
        do {
            return try body()
        } catch let error as PhotoError {
            return outcome(error)
        }
    }
}
