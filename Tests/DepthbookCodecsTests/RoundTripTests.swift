import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Load → write a JPEG with depth and mattes → load gives the same planes (within JPEG tolerance) and the
/// same metadata.
@Suite(.timeLimit(.minutes(30)))
struct RoundTripTests {
    static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0
        for i in a.indices { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(max(a.count, 1))
    }

    /// Mean and largest absolute difference over pixels valid in both, and whether holes match exactly.
    static func compare(_ a: FloatPlane, _ b: FloatPlane) -> (mean: Double, max: Double, holesMatch: Bool) {
        var sum = 0.0, worst = 0.0, n = 0, holesMatch = true
        for i in a.samples.indices {
            let x = a.samples[i], y = b.samples[i]
            if x.isNaN != y.isNaN { holesMatch = false; continue }
            if x.isNaN { continue }
            let d = Double(abs(x - y))
            sum += d; worst = max(worst, d); n += 1
        }
        return (sum / Double(max(n, 1)), worst, holesMatch)
    }

    static func expectSamePlanes(_ a: Photo, _ b: Photo) throws {
        #expect(b.width == a.width && b.height == a.height)
        #expect(meanAbsoluteDifference(a.image.samples, b.image.samples) < 3)
        #expect(b.colorSpace == a.colorSpace)
        #expect(b.iccProfile == a.iccProfile)
        if let da = a.depth {
            let db = try #require(b.depth)
            #expect(db.kind == da.kind && db.accuracy == da.accuracy && db.isFiltered == da.isFiltered && db.quality == da.quality)
            #expect(db.calibration == da.calibration)
            #expect(db.map.width == da.map.width && db.map.height == da.map.height)
            let ra = try #require(da.range), rb = try #require(db.range)
            let span = Double(ra.upperBound - ra.lowerBound)
            let diff = compare(da.map, db.map)
            #expect(diff.holesMatch)
            #expect(diff.mean < 0.004 * span, "mean depth error \(diff.mean) of span \(span)")
            #expect(diff.max < 0.06 * span, "largest depth error \(diff.max) of span \(span)")
            #expect(abs(Double(rb.lowerBound - ra.lowerBound)) < 0.01 * span)
            #expect(abs(Double(rb.upperBound - ra.upperBound)) < 0.01 * span)
        } else {
            #expect(b.depth == nil)
        }
        #expect(b.mattes.map(\.kind) == a.mattes.map(\.kind))
        for (ma, mb) in zip(a.mattes, b.mattes) {
            #expect(mb.plane.width == ma.plane.width && mb.plane.height == ma.plane.height)
            let diff = compare(ma.plane, mb.plane)
            #expect(diff.mean < 0.004, "\(ma.kind) mean error \(diff.mean)")
            #expect(diff.max < 0.2, "\(ma.kind) largest error \(diff.max)")
        }
        #expect(b.faces.count == a.faces.count)
        for (fa, fb) in zip(a.faces, b.faces) {
            #expect(fb.type == fa.type)
            #expect(abs(fb.x - fa.x) < 1e-6 && abs(fb.y - fa.y) < 1e-6 && abs(fb.width - fa.width) < 1e-6 && abs(fb.height - fa.height) < 1e-6)
        }
    }

    static let photosWithDepth = [
        "pillow_heif__pug.heic", "fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg",
        "spite-lensblur-extractor__table.jpg",
    ]

    @Test(.enabled(if: SharedPhotos.available), arguments: RoundTripTests.photosWithDepth)
    func realPhotoRoundTrip(_ file: String) throws {
        let original = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let written = try PhotoWriter.jpegWithDepth(original)
        let reread = try PhotoReader.read(data: written)
        try Self.expectSamePlanes(original, reread)
        // EXIF survives byte for byte except the orientation, now 1 because the pixels are upright.
        if let exif = original.exif {
            #expect(reread.exif == ExifBlock(bytes: exif).withUprightOrientation().bytes)
        }
        #expect(reread.orientation == .up)
        // Primary XMP properties survive (creation dates, say).
        if let xmp = original.xmp, let createDate = try XMPDocument(xmp).text("http://ns.adobe.com/xap/1.0/", "CreateDate") {
            #expect(try XMPDocument(try #require(reread.xmp)).text("http://ns.adobe.com/xap/1.0/", "CreateDate") == createDate)
        }
        // Writing the re-read photo again changes nothing structural.
        try Self.expectSamePlanes(reread, try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(reread)))
    }

    /// A synthetic portrait as the sample generator makes one: absolute disparity with holes, calibration
    /// with lookup tables, all five person mattes plus sky, and face regions.
    static func syntheticPortrait() -> Photo {
        let w = 96, h = 128
        var image = RGBImage8(width: w, height: h, channels: 3, repeating: 0)
        for y in 0..<h { for x in 0..<w { image[x, y, 0] = UInt8(x * 2); image[x, y, 1] = UInt8(y * 2); image[x, y, 2] = 128 } }
        let dw = 48, dh = 64
        var disparity = FloatPlane(width: dw, height: dh, channels: 1, repeating: 0.4)
        for y in 0..<dh {
            for x in 0..<dw {
                let dx = Double(x - 24), dy = Double(y - 26)
                if dx * dx / 144 + dy * dy / 256 < 1 { disparity[x, y, 0] = 2.0 } // the subject, 0.5 m away
                if x < 6 && y < 8 { disparity[x, y, 0] = .nan } // a block of holes
            }
        }
        var calibration = CameraCalibration(intrinsics: [110, 0, 47.5, 0, 110, 63.5, 0, 0, 1], referenceWidth: 96, referenceHeight: 128)
        calibration.extrinsics = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]
        calibration.pixelSize = 0.001
        calibration.lensDistortionCenter = (47.25, 63.75)
        calibration.lensDistortionLookupTable = (0..<42).map { Double(Float(Double($0) * 0.001)) }
        calibration.inverseLensDistortionLookupTable = (0..<42).map { Double(Float(-Double($0) * 0.001)) }
        calibration.lensDistortionCoefficients = [0, -0.25, 0.125]
        calibration.inverseLensDistortionCoefficients = [0, 0.25, -0.125]
        let depth = DepthData(kind: .disparity, map: disparity, accuracy: .absolute, isFiltered: false, quality: "high", calibration: calibration)
        func matte(_ kind: MatteKind, _ inside: (Int, Int) -> Bool) -> Matte {
            var plane = FloatPlane(width: 48, height: 64, channels: 1, repeating: 0)
            for y in 0..<64 { for x in 0..<48 where inside(x, y) { plane[x, y, 0] = 1 } }
            return Matte(kind: kind, plane: plane)
        }
        let mattes = [
            matte(.portraitEffectsMatte) { x, y in let dx = Double(x - 24), dy = Double(y - 26); return dx * dx / 144 + dy * dy / 256 < 1 },
            matte(.skin) { x, y in (18..<30).contains(x) && (18..<34).contains(y) },
            matte(.hair) { x, y in (14..<34).contains(x) && (10..<17).contains(y) },
            matte(.teeth) { x, y in (22..<26).contains(x) && (30..<32).contains(y) },
            matte(.glasses) { x, y in (18..<30).contains(x) && (22..<24).contains(y) },
            matte(.sky) { _, y in y < 6 },
        ]
        let faces = [FaceRegion(x: 36, y: 36, width: 24, height: 32), FaceRegion(x: 10.5, y: 4.25, width: 8, height: 8, type: "Focus")]
        return Photo(image: image, orientation: .up, colorSpace: "sRGB", depth: depth, mattes: mattes, faces: faces)
    }

    @Test func syntheticPortraitRoundTrip() throws {
        let photo = Self.syntheticPortrait()
        let reread = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(photo))
        try Self.expectSamePlanes(photo, reread)
        #expect(reread.depth?.map.holeCount == 48)
        // The subject's disparity comes back as 2.0 (0.5 m) within one 8-bit step of the range.
        #expect(abs((reread.depth?.map[24, 26, 0] ?? 0) - 2.0) < 1.6 / 223)
        #expect(reread.calibration?.lensDistortionLookupTable?.count == 42)
    }

    @Test func depthKindAndImageOnlyRoundTrip() throws {
        var photo = Self.syntheticPortrait()
        photo.depth = photo.depth?.converted(to: .depth)
        photo.mattes = []
        let reread = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(photo))
        #expect(reread.depth?.kind == .depth)
        try Self.expectSamePlanes(photo, reread)

        photo.depth = nil
        let imageOnly = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(photo))
        #expect(imageOnly.depth == nil && imageOnly.mattes.isEmpty && imageOnly.faces.count == 2)
    }

    /// The caller's XMP (a recipe, say) is merged into the primary image's XMP; junk XMP is refused.
    @Test func extraXMPIsKept() throws {
        let extra = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:nb="http://ns.depthbook.dev/notebook/1.0/" nb:Recipe="{&quot;cells&quot;:[]}"/>
        </rdf:RDF></x:xmpmeta>
        """
        let written = try PhotoWriter.jpegWithDepth(Self.syntheticPortrait(), extraXMP: extra)
        let reread = try PhotoReader.read(data: written)
        let xmp = try XMPDocument(try #require(reread.xmp))
        #expect(xmp.text("http://ns.depthbook.dev/notebook/1.0/", "Recipe") == "{\"cells\":[]}")
        #expect(reread.faces.count == 2)
        #expect(throws: PhotoError.self) { try PhotoWriter.jpegWithDepth(Self.syntheticPortrait(), extraXMP: "<not xmp") }
    }

    /// A recipe larger than one JPEG segment travels as extended XMP and reads back whole.
    @Test func largeExtraXMPGoesToExtendedXMP() throws {
        let recipe = String(repeating: "0123456789abcdef", count: 12_000)  // 192 KB
        let extra = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:nb="http://ns.depthbook.dev/notebook/1.0/"><nb:Recipe>\(recipe)</nb:Recipe></rdf:Description>
        </rdf:RDF></x:xmpmeta>
        """
        let written = try PhotoWriter.jpegWithDepth(Self.syntheticPortrait(), extraXMP: extra)
        let structure = try JPEGStructure(written)
        let main = try XMPDocument(try #require(structure.xmp))
        let guid = try #require(main.text(XMPNamespace.xmpNote, "HasExtendedXMP"))
        let extended = try #require(try structure.extendedXMP(guid: guid))
        #expect(MD5.hex(Array(extended.utf8)) == guid)
        #expect(try XMPDocument(extended).text("http://ns.depthbook.dev/notebook/1.0/", "Recipe") == recipe)
        let reread = try PhotoReader.read(data: written)
        try Self.expectSamePlanes(Self.syntheticPortrait(), reread)
    }

    static let exiftool = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// exiftool (an independent reader) sees the MPF images and Apple's depth XMP in what Depthbook writes.
    @Test(.enabled(if: RunEnvironment.isCI || RoundTripTests.exiftool != nil, "needs exiftool (libimage-exiftool-perl)"))
    func exiftoolReportsMPFImagesAndDepthXMP() throws {
        let written = try PhotoWriter.jpegWithDepth(Self.syntheticPortrait())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("depthbook-roundtrip-\(UUID().uuidString).jpg")
        try Data(written).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        func exiftool(_ args: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(RoundTripTests.exiftool))
            process.arguments = args
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: out, as: UTF8.self)
        }
        let summary = try exiftool(["-s", "-NumberOfImages", "-MPImageType", "-RegionType", "-ImageWidth", file.path])
        #expect(summary.contains("NumberOfImages                  : 8"))
        #expect(summary.contains("Face, Focus"))

        // Extract MPF image 2 and read its XMP: Apple's depth fields.
        let depthFile = file.deletingPathExtension().appendingPathExtension("mp2.jpg")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(RoundTripTests.exiftool))
        process.arguments = ["-b", "-MPImage2", "-w", "%d%f.mp2.%e", file.path]
        try process.run(); process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: depthFile) }
        let fields = try exiftool(["-s", "-AuxiliaryImageType", "-FloatMinValue", "-FloatMaxValue", "-Accuracy", "-IntrinsicMatrixReferenceWidth", "-ImageWidth", depthFile.path])
        #expect(fields.contains("AuxiliaryImageType              : disparity"))
        #expect(fields.contains("FloatMinValue                   : 0.4"))
        #expect(fields.contains("FloatMaxValue                   : 2"))
        #expect(fields.contains("Accuracy                        : absolute"))
        #expect(fields.contains("IntrinsicMatrixReferenceWidth   : 96"))
        #expect(fields.contains("ImageWidth                      : 48"))
    }
}
