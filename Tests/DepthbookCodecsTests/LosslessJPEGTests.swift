import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// Lossless JPEG (SOF3) depth written by other encoders: libjpeg-turbo 3.1 and liblj92, through
/// `References/lossless_jpeg.py` (which checked each file against libjpeg-turbo's own decoder).
@Suite(.timeLimit(.minutes(30)))
struct LosslessJPEGTests {
    struct Manifest: Decodable {
        struct Fixture: Decodable {
            var file: String
            var encoder: String
            var width: Int
            var height: Int
            var precision: Int
            var predictor: Int
            var pointTransform: Int
            var restartInterval: Int
        }

        struct HalfFloat: Decodable {
            var file: String
            var expected: String
        }

        var source: String
        var fixtures: [Fixture]
        var halfFloat: HalfFloat
    }

    static let directory = PackageRoot.url.appendingPathComponent("Tests/DepthbookCodecsTests/References/LosslessJPEG")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: directory.appendingPathComponent("lossless-jpeg.json")))
    }

    /// The fixtures' file names (empty if the list cannot be read: `everyFixtureIsListed` then fails).
    static let fixtureNames: [String] = (try? manifest().fixtures.map(\.file)) ?? []

    /// The 16-bit map every fixture encodes (little-endian uint16).
    static func source() throws -> [UInt16] {
        let raw = try bytes(try manifest().source)
        return stride(from: 0, to: raw.count - 1, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
    }

    /// What a fixture must decode to: the source at its precision, less the point transform's bits.
    static func expected(_ fixture: Manifest.Fixture) throws -> [UInt16] {
        let shift = UInt16(16 - fixture.precision), pt = UInt16(fixture.pointTransform)
        return try source().map { (($0 >> shift) >> pt) << pt }
    }

    @Test func everyFixtureIsListed() throws {
        let manifest = try Self.manifest()
        #expect(manifest.fixtures.count == 13)
        #expect(Set(manifest.fixtures.map(\.predictor)) == Set(1...7))
        #expect(Set(manifest.fixtures.map(\.precision)) == [2, 8, 12, 16])
        #expect(manifest.fixtures.contains { $0.restartInterval > 0 && $0.pointTransform > 0 })
        #expect(manifest.fixtures.contains { $0.encoder.contains("lj92") })
        #expect(try Self.source().count == 48 * 32)
        #expect(try Self.source().contains(0))
    }

    /// Every sample exactly as the encoder was given it: predictors 1-7, 2 to 16 bits, restarts, point transform.
    @Test(arguments: LosslessJPEGTests.fixtureNames)
    func decodesExactly(_ name: String) throws {
        let fixture = try #require(try Self.manifest().fixtures.first { $0.file == name })
        let stream = try Self.bytes(name)
        #expect(LosslessJPEGDecoder.isLossless(stream))
        #expect(try JPEGStructure(stream).isLossless)
        let image = try LosslessJPEGDecoder.decode(stream, limits: .default, what: name)
        #expect(image.width == fixture.width && image.height == fixture.height && image.components == 1)
        #expect(image.precision == fixture.precision)
        let expected = try Self.expected(fixture)
        let wrong = zip(image.samples, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "\(wrong.count) samples differ, first at \(wrong.first.map { "\($0.offset): \($0.element)" } ?? "")")
    }

    /// A 16-bit lossless map given as a depth-map file of its own (`--depth`): its grey as 0...1.
    @Test(arguments: ["depth16-p1.jpg", "depth16-p7-rst1row.jpg", "depth8-p1.jpg"])
    func standaloneDepthMap(_ name: String) throws {
        let fixture = try #require(try Self.manifest().fixtures.first { $0.file == name })
        let image = try JPEGEncoder.encode(RGBImage8(width: 96, height: 64, channels: 3, repeating: 120))
        let photo = try PhotoReader.read(data: image, depthMapData: try Self.bytes(name), polarity: .brighterIsNearer)
        let map = try #require(photo.depth).map
        #expect(map.width == 48 && map.height == 32)
        let scale = Float((1 << fixture.precision) - 1)
        let expected = try Self.expected(fixture).map { Float($0) / scale }
        #expect(EngineFixtures.maxDifference(map.samples, expected) < 1e-6)

        let farther = try PhotoReader.read(data: image, depthMapData: try Self.bytes(name), polarity: .brighterIsFarther)
        let turned = try #require(farther.depth).map
        #expect(EngineFixtures.maxDifference(turned.samples, expected.map { 1 - $0 }) < 1e-6)
    }

    /// Apple's layout: the depth as a 16-bit lossless MPF image, its XMP mapping integers 1...65535 onto the
    /// float range, and zeros (below IntMinValue) as holes.
    @Test(arguments: ["depth16-p1.jpg", "depth16-p7.jpg", "depth16-p7-rst1row.jpg"])
    func mpfDepthWithHoles(_ name: String) throws {
        let xmp = BadInputTests.depthXMP("""
            <apdi:FloatMinValue>0.5</apdi:FloatMinValue><apdi:FloatMaxValue>2.5</apdi:FloatMaxValue>
            <apdi:IntMinValue>1</apdi:IntMinValue><apdi:IntMaxValue>65535</apdi:IntMaxValue>
            <apdi:StoredFormat>1278226742</apdi:StoredFormat><apdi:NativeFormat>1751411059</apdi:NativeFormat>
            <depthData:Accuracy>relative</depthData:Accuracy><depthData:Filtered>false</depthData:Filtered>
            """)
        let file = try Self.mpfFile(depth: try Self.bytes(name), xmp: xmp)
        let photo = try PhotoReader.read(data: file)
        let depth = try #require(photo.depth)
        #expect(depth.kind == .disparity && !depth.isFiltered)
        #expect(depth.map.width == 48 && depth.map.height == 32)
        #expect(!photo.auxiliary.contains { $0.kind == "depth" })
        let source = try Self.source()
        let expected = source.map { s -> Float in s == 0 ? .nan : 0.5 + (Float(s) - 1) / 65534 * 2 }
        #expect(depth.map.holeCount == source.filter { $0 == 0 }.count)
        #expect(EngineFixtures.maxDifference(depth.map.samples, expected) < 1e-5)
        let facts = PhotoFacts(photo)
        #expect(facts.depth?.holes == depth.map.holeCount)
    }

    /// Without IntMin/IntMaxValue, a 12-bit map spans 0...4095 onto the float range.
    @Test func mpfDepthTakesItsRangeFromThePrecision() throws {
        let xmp = BadInputTests.depthXMP("<apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>3</apdi:FloatMaxValue>")
        let photo = try PhotoReader.read(data: try Self.mpfFile(depth: try Self.bytes("depth12-p7.jpg"), xmp: xmp))
        let map = try #require(photo.depth).map
        let expected = try Self.source().map { 1 + Float($0 >> 4) / 4095 * 2 }
        #expect(EngineFixtures.maxDifference(map.samples, expected) < 1e-5)
    }

    /// Half-float disparity ('hdis' stored) with NaN holes, the way Apple's native format holds them.
    @Test func mpfHalfFloatDisparity() throws {
        let manifest = try Self.manifest()
        let xmp = BadInputTests.depthXMP("<apdi:StoredFormat>1751411059</apdi:StoredFormat><apdi:NativeFormat>1751411059</apdi:NativeFormat>")
        let photo = try PhotoReader.read(data: try Self.mpfFile(depth: try Self.bytes(manifest.halfFloat.file), xmp: xmp))
        let map = try #require(photo.depth).map
        let raw = try Self.bytes(manifest.halfFloat.expected)
        let expected = stride(from: 0, to: raw.count - 3, by: 4).map { i in
            Float(bitPattern: UInt32(raw[i]) | UInt32(raw[i + 1]) << 8 | UInt32(raw[i + 2]) << 16 | UInt32(raw[i + 3]) << 24)
        }
        #expect(expected.contains { $0.isNaN })
        #expect(EngineFixtures.maxDifference(map.samples, expected) == 0)
    }

    /// Google's GDepth with its depth image as a lossless JPEG (RangeLinear, near 1, far 3).
    @Test func gdepthLosslessImage() throws {
        let g = XMPNamespace.gDepth
        let xmp = XMPWriter.packet([
            .text(g, "Format", "RangeLinear"), .number(g, "Near", 1), .number(g, "Far", 3), .text(g, "Mime", "image/jpeg"),
            .text(g, "Data", Data(try Self.bytes("depth16-p6-pt2-rst3rows.jpg")).base64EncodedString()),
        ])
        let primary = try JPEGEncoder.encode(RGBImage8(width: 48, height: 32, channels: 3, repeating: 80))
        let photo = try PhotoReader.read(data: try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: primary))
        let map = try #require(photo.depth).map
        let expected = try Self.source().map { 1 / (1 + Float(($0 >> 2) << 2) / 65535 * 2) }
        #expect(EngineFixtures.maxDifference(map.samples, expected) < 1e-5)
    }

    /// A primary JPEG and one MPF image: `depth` with `xmp` spliced in after its SOI.
    static func mpfFile(depth: [UInt8], xmp: String) throws -> [UInt8] {
        let primary = try JPEGEncoder.encode(RGBImage8(width: 96, height: 64, channels: 3, repeating: 90))
        let depthImage = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp), into: depth)
        return try PhotoWriter.multiPicture(primaryPixels: primary, head: [], auxiliary: [depthImage])
    }

    // MARK: Hostile input

    /// Decodes or throws a `PhotoError`; anything else (or a trap) fails the test.
    static func outcome(_ bytes: [UInt8], limits: DecodeLimits = .default) -> Result<LosslessJPEGImage, PhotoError>? {
        do {
            return .success(try LosslessJPEGDecoder.decode(bytes, limits: limits, what: "the depth map"))
        } catch let error as PhotoError {
            return .failure(error)
        } catch {
            Issue.record("not a PhotoError: \(error)")
            return nil
        }
    }

    /// Cut at every byte: an error (truncated, mostly) unless only the final EOI marker is missing.
    @Test(arguments: ["depth16-p1.jpg", "depth16-p6-pt2-rst3rows.jpg"])
    func everyTruncationIsAnError(_ name: String) throws {
        let bytes = try Self.bytes(name)
        var truncated = 0
        for n in 0..<(bytes.count - 2) {
            guard let result = Self.outcome(Array(bytes.prefix(n))) else { continue }
            switch result {
            case .success: Issue.record("\(name) cut to \(n) bytes decoded")
            case .failure(let e):
                if case .truncated = e { truncated += 1 }
                #expect(!e.description.isEmpty)
            }
        }
        #expect(truncated > (bytes.count - 2) * 9 / 10)
        // Without its EOI the stream still holds every sample.
        #expect(throws: Never.self) { try LosslessJPEGDecoder.decode(Array(bytes.prefix(bytes.count - 2)), limits: .default, what: "x") }
    }

    /// Random bytes changed anywhere: each file decodes or gives a `PhotoError`.
    @Test func mutationsNeverTrap() throws {
        var rng = SplitMix64(seed: 26)
        let small = DecodeLimits(maxPixels: 1 << 20, maxBytes: 1 << 20)
        for name in ["depth16-p1.jpg", "depth16-p7-rst1row.jpg", "depth12-p7.jpg", "depth16-lj92.jpg"] {
            let bytes = try Self.bytes(name)
            for _ in 0..<400 {
                var b = bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
                _ = Self.outcome(b, limits: small)
            }
        }
    }

    /// A header's fields set to what no encoder writes: each refused with its own message.
    @Test func headerFieldsOutOfRange() throws {
        let good = try Self.bytes("depth16-p1.jpg")
        let sof = try #require(Self.find([0xFF, 0xC3], in: good)) + 4
        let sos = try #require(Self.find([0xFF, 0xDA], in: good)) + 4
        let dht = try #require(Self.find([0xFF, 0xC4], in: good)) + 4

        func expectError(_ edit: (inout [UInt8]) -> Void, _ what: String, limits: DecodeLimits = .default) {
            var b = good
            edit(&b)
            guard let result = Self.outcome(b, limits: limits) else { return }
            if case .success = result { Issue.record("\(what): decoded") }
        }
        expectError({ $0[sof] = 17 }, "17-bit samples")
        expectError({ $0[sof] = 1 }, "1-bit samples")
        expectError({ $0[sof + 1] = 0; $0[sof + 2] = 0 }, "height 0 (DNL)")
        expectError({ $0[sof + 3] = 0; $0[sof + 4] = 0 }, "width 0")
        expectError({ $0[sof + 1] = 0xEA; $0[sof + 2] = 0x60; $0[sof + 3] = 0xEA; $0[sof + 4] = 0x60 }, "60000×60000")
        expectError({ $0[sof + 5] = 0 }, "no components")
        expectError({ $0[sof + 7] = 0x21 }, "subsampled component")
        expectError({ $0[sos + 1] = 9 }, "a scan of a component the frame lacks")
        expectError({ $0[sos + 2] = 0x30 }, "an undefined Huffman table")
        expectError({ $0[sos + 3] = 0 }, "predictor 0")
        expectError({ $0[sos + 3] = 8 }, "predictor 8")
        expectError({ $0[sos + 5] = 0x10 }, "a point transform of all 16 bits")
        expectError({ $0[sos + 4] = 63 }, "a spectral end")
        expectError({ $0[dht + 1 + 0] = 3 }, "more 1-bit codes than exist")
        expectError({ $0[dht] = 0x05 }, "Huffman table slot 5")
        expectError({ $0[sof - 3] = 0xC1 }, "not a lossless frame")
        expectError({ $0[sof - 3] = 0xCB }, "arithmetic lossless")

        var tooLarge = good
        tooLarge[sof + 1] = 0x10  // 4096 rows of 48
        tooLarge[sof + 2] = 0x00
        if case .failure(let e)? = Self.outcome(tooLarge, limits: DecodeLimits(maxPixels: 100_000, maxBytes: 1 << 20)) {
            #expect(e == .tooLarge("the depth map is 48×4096 pixels; the limit is 0.1 megapixels"))
        } else {
            Issue.record("a frame above the pixel limit was not refused")
        }
    }

    /// Through the photo reader: an MPF whose lossless depth is cut short, or junk after its headers.
    @Test func brokenDepthInAPhotoIsAnError() throws {
        let xmp = BadInputTests.depthXMP("<apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>2</apdi:FloatMaxValue>")
        let stream = try Self.bytes("depth16-p1.jpg")
        let cut = try Self.mpfFile(depth: Array(stream.prefix(stream.count / 2)), xmp: xmp)
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: cut) }
        let sos = try #require(Self.find([0xFF, 0xDA], in: stream))
        var junk = Array(stream.prefix(sos + 14))
        for k in 0..<300 { junk.append(UInt8(truncatingIfNeeded: k &* 73)) }
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: try Self.mpfFile(depth: junk, xmp: xmp)) }
        let image = try JPEGEncoder.encode(RGBImage8(width: 96, height: 64, channels: 3, repeating: 120))
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: image, depthMapData: Array(stream.prefix(600))) }
    }

    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
