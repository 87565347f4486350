import DepthbookEngine
import DepthbookTestSupport
import Testing

@testable import DepthbookCodecs

/// Hostile and broken files give a `PhotoError` with a message, never a crash or a hang.
@Suite(.timeLimit(.minutes(30)))
struct BadInputTests {
    /// Runs the reader and reports what happened; any error other than `PhotoError` is a failure.
    static func outcome(_ bytes: [UInt8], depth: [UInt8]? = nil, limits: DecodeLimits = .default) -> Result<Photo, PhotoError>? {
        do {
            return .success(try PhotoReader.read(data: bytes, depthMapData: depth, limits: limits))
        } catch let error as PhotoError {
            return .failure(error)
        } catch {
            Issue.record("not a PhotoError: \(error)")
            return nil
        }
    }

    static func expectError(_ bytes: [UInt8], _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result = outcome(bytes) else { return }
        switch result {
        case .success: Issue.record("\(comment): loaded instead of failing", sourceLocation: sourceLocation)
        case .failure(let e): #expect(!e.description.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test(.enabled(if: SharedPhotos.available))
    func badFilesGiveErrors() throws {
        let files = try SharedPhotos.badFiles()
        #expect(files.count == 4)
        for file in files where !file.contains("invalid_id") {
            let bytes = try SharedPhotos.bytes(file)
            BadInputTests.expectError(bytes, file)
            #expect(throws: PhotoError.self) { try PhotoReader.read(contentsOf: SharedPhotos.path(file)) }
        }
    }

    @Test func emptyAndUnknownData() {
        #expect(throws: PhotoError.empty) { try PhotoReader.read(data: []) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: Array("hello, this is not a photo".utf8)) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: [0xFF, 0xD8]) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: PNGCodec.signature) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(contentsOf: "/nonexistent/photo.heic") }
        #expect(throws: PhotoError.self) { try PhotoReader.read(contentsOf: "/tmp") }
    }

    static let truncationFiles = [
        "pillow_heif__pug.heic", "fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg",
        "spite-lensblur-extractor__table.jpg", "depthy__shelf-image.jpg",
    ]

    /// Cut at the first bytes, inside every header region, and at evenly spaced offsets through the data.
    @Test(.enabled(if: SharedPhotos.available), arguments: BadInputTests.truncationFiles)
    func truncationsGiveErrors(_ file: String) throws {
        let bytes = try SharedPhotos.bytes(file)
        var offsets: Set<Int> = [1, 2, 3, 4, 7, 8, 11, 12, 16, 24, 32, 64, 100, 200, 500, 1000, 2000, 4000, bytes.count - 1, bytes.count - 2]
        for k in 1..<24 { offsets.insert(bytes.count * k / 24) }
        for cut in offsets.sorted() where cut > 0 && cut < bytes.count {
            BadInputTests.expectError(Array(bytes[..<cut]), "\(file) cut at \(cut) of \(bytes.count)")
        }
    }

    /// Flipped bytes in the headers and through the data: a clean error or a photo, never anything else.
    @Test(.enabled(if: SharedPhotos.available), arguments: BadInputTests.truncationFiles)
    func flippedBytesNeverCrash(_ file: String) throws {
        let bytes = try SharedPhotos.bytes(file)
        var generator = SplitMix64(seed: UInt64(bytes.count))
        var positions = Array(0..<8).map { $0 * 7 % bytes.count }
        positions += (0..<8).map { _ in Int(generator.next() % UInt64(min(bytes.count, 8192))) }
        positions += (0..<4).map { _ in Int(generator.next() % UInt64(bytes.count)) }
        for p in positions {
            var corrupt = bytes
            corrupt[p] ^= 0xFF
            let outcome = BadInputTests.outcome(corrupt)
            // Flipping the first byte breaks the signature: that must be an error.
            if p == 0, case .success? = outcome { Issue.record("\(file) with its first byte flipped loaded") }
        }
    }

    @Test(.enabled(if: SharedPhotos.available))
    func limitsAreEnforced() throws {
        let heic = try SharedPhotos.bytes("pillow_heif__pug.heic")
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: heic, limits: DecodeLimits(maxPixels: 1_000_000, maxBytes: 1 << 30)) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: heic, limits: DecodeLimits(maxPixels: 1 << 30, maxBytes: 1000)) }
        let jpeg = try SharedPhotos.bytes("fidmaa-portrait-analyser__jpeg_depth_data.jpg")
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: jpeg, limits: DecodeLimits(maxPixels: 1_000_000, maxBytes: 1 << 30)) }
        do {
            _ = try PhotoReader.read(data: jpeg, limits: DecodeLimits(maxPixels: 1_000_000, maxBytes: 1 << 30))
        } catch let error as PhotoError {
            guard case .tooLarge = error else { Issue.record("expected tooLarge, got \(error)"); return }
            #expect(error.description.contains("megapixels"))
        }
    }

    /// A JPEG whose frame header claims 60000×60000 pixels is refused before any allocation.
    @Test func hugeJPEGHeaderIsRefused() throws {
        var jpeg = try JPEGEncoder.encode(RGBImage8(width: 16, height: 16, channels: 3, repeating: 128))
        let structure = try JPEGStructure(jpeg)
        let sof = try #require(structure.segments.first { $0.marker == 0xC0 })
        jpeg[sof.payload.lowerBound + 1] = 0xEA; jpeg[sof.payload.lowerBound + 2] = 0x60
        jpeg[sof.payload.lowerBound + 3] = 0xEA; jpeg[sof.payload.lowerBound + 4] = 0x60
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: jpeg) }
    }

    /// A PNG whose header claims 100000×100000 pixels is refused.
    @Test func hugePNGHeaderIsRefused() throws {
        var png = try PNGCodec.encode(Raster<UInt8>(width: 4, height: 4, channels: 1, repeating: 7))
        // IHDR data starts at byte 16: width, height (big-endian). The CRC is now wrong as well.
        png.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: png) }
    }

    @Test func junkXMPIsABadMetadataError() throws {
        let pixels = try JPEGEncoder.encode(RGBImage8(width: 8, height: 8, channels: 3, repeating: 90))
        let junk = try JPEGSegmentInserter.xmpSegment("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><oops></x:xmpmeta>")
        let file = try JPEGSegmentInserter.insert(junk, into: pixels)
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: file) }
        do {
            _ = try PhotoReader.read(data: file)
        } catch let error as PhotoError {
            guard case .badMetadata = error else { Issue.record("expected badMetadata, got \(error)"); return }
        }
    }

    /// A file with one MPF depth image whose XMP is `xmp` (values 0...15 stored).
    static func fileWithDepthXMP(_ xmp: String) throws -> [UInt8] {
        let primary = try JPEGEncoder.encode(RGBImage8(width: 8, height: 8, channels: 3, repeating: 90))
        let stored = Raster<UInt8>(width: 4, height: 4, channels: 1, samples: (0..<16).map { UInt8($0 * 16) })
        let depthJPEG = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: try JPEGEncoder.encodeGray(stored, quality: 95))
        return try PhotoWriter.multiPicture(primaryPixels: primary, head: [], auxiliary: [depthJPEG])
    }

    static func depthXMP(_ fields: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:depthData="http://ns.apple.com/depthData/1.0/"
           xmlns:depthbook="http://ns.depthbook.dev/1.0/">
        <apdi:AuxiliaryImageType>disparity</apdi:AuxiliaryImageType>\(fields)
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    /// Depth XMP with junk or inconsistent values, and a depth map whose every pixel is a hole.
    @Test func junkDepthValuesAndAllHoleMaps() throws {
        let good = try Self.fileWithDepthXMP(Self.depthXMP("<apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>2</apdi:FloatMaxValue>"))
        let range = try #require(try PhotoReader.read(data: good).depth?.range)
        #expect(abs(range.lowerBound - 1) < 0.01 && abs(range.upperBound - (1 + 240 / 255)) < 0.01)

        let junk = try Self.fileWithDepthXMP(Self.depthXMP("<apdi:FloatMinValue>zero</apdi:FloatMinValue><apdi:FloatMaxValue>2</apdi:FloatMaxValue>"))
        #expect(throws: PhotoError.badMetadata("FloatMinValue is \"zero\", not a number")) { try PhotoReader.read(data: junk) }

        let inverted = try Self.fileWithDepthXMP(Self.depthXMP("<apdi:FloatMinValue>3</apdi:FloatMinValue><apdi:FloatMaxValue>2</apdi:FloatMaxValue>"))
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: inverted) }

        let badMatrix = try Self.fileWithDepthXMP(Self.depthXMP("<depthData:IntrinsicMatrix><rdf:Seq><rdf:li>1</rdf:li></rdf:Seq></depthData:IntrinsicMatrix>"))
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: badMatrix) }

        let allHoles = try Self.fileWithDepthXMP(Self.depthXMP("<depthbook:HoleIntValue>255</depthbook:HoleIntValue>"))
        #expect(throws: PhotoError.depthAllHoles) { try PhotoReader.read(data: allHoles) }

        let image = RGBImage8(width: 8, height: 8, channels: 3, repeating: 90)
        let nanDepth = DepthData(kind: .disparity, map: FloatPlane(width: 4, height: 4, channels: 1, repeating: .nan), accuracy: .relative, isFiltered: false)
        #expect(throws: PhotoError.depthAllHoles) { try PhotoWriter.jpegWithDepth(Photo(image: image, depth: nanDepth)) }
    }
}
