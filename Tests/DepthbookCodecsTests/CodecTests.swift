import DepthbookEngine
import Foundation
import Testing

@testable import DepthbookCodecs

/// PNG, JPEG and MPF building blocks against exact expectations.
@Suite(.timeLimit(.minutes(30)))
struct CodecTests {
    @Test(arguments: [8, 16])
    func pngGrayRoundTripIsExact(_ bits: Int) throws {
        let w = 37, h = 23
        if bits == 8 {
            let plane = Raster<UInt8>(width: w, height: h, channels: 1, samples: (0..<(w * h)).map { UInt8($0 % 256) })
            let png = try PNGCodec.encode(plane)
            let back = try PNGCodec.decode(png)
            #expect(back.bitDepth == 8 && back.channels == 1 && back.width == w && back.height == h)
            #expect(back.samples == plane.samples.map { UInt16($0) })
        } else {
            let plane = Raster<UInt16>(width: w, height: h, channels: 1, samples: (0..<(w * h)).map { UInt16(($0 * 2654) % 65536) })
            let back = try PNGCodec.decode(try PNGCodec.encode(plane))
            #expect(back.bitDepth == 16 && back.channels == 1)
            #expect(back.samples == plane.samples)
        }
    }

    @Test func pngUnitPlaneQuantisesAndClamps() throws {
        let plane = FloatPlane(width: 4, height: 1, channels: 1, samples: [0, 0.5, 1.7, .nan])
        let back = try PNGCodec.decode(try PNGCodec.encode(unit: plane))
        #expect(back.samples == [0, 128, 255, 0])
        let rgb = RGBImage8(width: 2, height: 1, channels: 3, samples: [1, 2, 3, 250, 251, 252])
        let photo = try PhotoReader.read(data: try PNGCodec.encode(rgb))
        #expect(photo.image == rgb && photo.depth == nil)
    }

    @Test func pngCorruptionIsAnError() throws {
        var png = try PNGCodec.encode(Raster<UInt8>(width: 64, height: 64, channels: 1, repeating: 9))
        #expect(throws: PhotoError.self) { try PNGCodec.decode(Array(png.prefix(png.count / 2))) }
        png[png.count / 2] ^= 0x55
        #expect(throws: PhotoError.self) { try PNGCodec.decode(png) }
    }

    /// Encoded then decoded by libjpeg-turbo: close to the original, right size, 4:2:0.
    @Test func jpegEncoderRoundTrip() throws {
        let w = 161, h = 97
        var image = RGBImage8(width: w, height: h, channels: 3, repeating: 0)
        for y in 0..<h { for x in 0..<w { image[x, y, 0] = UInt8(x); image[x, y, 1] = UInt8(y * 2); image[x, y, 2] = UInt8((x + y) / 2) } }
        let jpeg = try JPEGEncoder.encode(image, quality: 90)
        let structure = try JPEGStructure(jpeg)
        #expect(structure.width == w && structure.height == h && structure.components == 3)
        let sof = try #require(structure.segments.first { $0.marker == 0xC0 })
        #expect(jpeg[sof.payload.lowerBound + 7] == 0x22)  // luma sampling factors 2×2: 4:2:0
        let back = try TurboJPEGDecoder.decode(jpeg[...], gray: false, limits: .default, what: "test")
        var sum = 0
        for i in image.samples.indices { sum += abs(Int(image.samples[i]) - Int(back.samples[i])) }
        #expect(Double(sum) / Double(image.samples.count) < 2)
        // The pointer entry point gives the same bytes.
        let viaPointer = try image.samples.withUnsafeBufferPointer { try JPEGEncoder.encode(rgb: $0, width: w, height: h, quality: 90) }
        #expect(viaPointer == jpeg)
    }

    @Test func jpegEncoderRefusesBadInput() {
        #expect(throws: PhotoError.self) { try JPEGEncoder.encode(RGBImage8(width: 0, height: 0, channels: 3, samples: [])) }
        #expect(throws: PhotoError.self) { try [UInt8](repeating: 0, count: 10).withUnsafeBufferPointer { try JPEGEncoder.encode(rgb: $0, width: 4, height: 4) } }
        #expect(throws: PhotoError.self) { try JPEGEncoder.encode(Raster<UInt8>(width: 2, height: 2, channels: 2, repeating: 0)) }
    }

    /// Pooled handles are never shared: concurrent encodes give the same bytes as a lone one.
    @Test func concurrentEncodesAreIndependent() async throws {
        let images = (0..<8).map { k in RGBImage8(width: 64 + k * 8, height: 48, channels: 3, samples: (0..<((64 + k * 8) * 48 * 3)).map { UInt8(($0 * (k + 3)) % 251) }) }
        let expected = try images.map { try JPEGEncoder.encode($0) }
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for round in 0..<4 { for (k, image) in images.enumerated() { group.addTask { (k + round * 0, try JPEGEncoder.encode(image)) } } }
            var out: [(Int, [UInt8])] = []
            for try await r in group { out.append(r) }
            return out
        }
        #expect(results.count == 32)
        for (k, bytes) in results { #expect(bytes == expected[k]) }
    }

    /// RFC 1321's test vectors.
    @Test func md5MatchesTheRFC() {
        #expect(MD5.hex([]) == "D41D8CD98F00B204E9800998ECF8427E")
        #expect(MD5.hex(Array("abc".utf8)) == "900150983CD24FB0D6963F7D28E17F72")
        #expect(MD5.hex(Array("12345678901234567890123456789012345678901234567890123456789012345678901234567890".utf8))
            == "57EDF4A22BE3C955AC49DA2E2107B67A")
    }

    @Test func mpfIndexRoundTrip() throws {
        let index = MPFIndex(entries: [
            .init(attributes: MPFIndex.primaryAttributes, size: 1000, offset: 0),
            .init(attributes: 0, size: 200, offset: 900),
            .init(attributes: 0, size: 300, offset: 1100),
        ])
        let payload = index.payload()
        #expect(payload.count == MPFIndex.payloadSize(imageCount: 3) + 0)
        #expect(try MPFIndex(payload: payload.dropFirst(4)) == index)
        #expect(throws: PhotoError.self) { try MPFIndex(payload: payload.dropFirst(4).prefix(30)) }
    }

    /// EXIF orientation read from both byte orders, and reset to 1 in place.
    @Test(arguments: [true, false])
    func exifOrientation(_ bigEndian: Bool) throws {
        let exif = Self.exifBlock(orientation: 6, bigEndian: bigEndian)
        #expect(exif.orientation == .right)
        let upright = exif.withUprightOrientation()
        #expect(upright.orientation == .up)
        #expect(upright.bytes.count == exif.bytes.count)
        #expect(ExifBlock(bytes: Array(exif.bytes.prefix(14))).orientation == nil)
    }

    /// A minimal EXIF block: TIFF header and IFD0 with one orientation entry.
    static func exifBlock(orientation: UInt16, bigEndian: Bool) -> ExifBlock {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            : [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) + u16(1)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u32(0)
        return ExifBlock(bytes: ExifBlock.header + tiff)
    }
}

/// The fast upright transform equals the engine's plain reference for every orientation and channel count.
@Suite(.timeLimit(.minutes(30)))
struct UprightTransformTests {
    @Test(arguments: Orientation.allCases)
    func matchesTheEngineReference(_ orientation: Orientation) {
        for channels in [1, 3, 4] {
            let w = 7, h = 5
            let raster = Raster<UInt8>(width: w, height: h, channels: channels, samples: (0..<(w * h * channels)).map { UInt8($0 % 251) })
            #expect(UprightTransform.apply(raster, orientation) == raster.applying(orientation), "\(orientation) × \(channels)")
            let floats = Raster<Float>(width: w, height: h, channels: channels, samples: raster.samples.map { Float($0) / 7 })
            #expect(UprightTransform.apply(floats, orientation) == floats.applying(orientation))
        }
    }
}
