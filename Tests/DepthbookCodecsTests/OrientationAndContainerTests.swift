import DepthbookEngine
import Foundation
import Testing

@testable import DepthbookCodecs

/// Files built here with known content: EXIF orientation applied to every plane, Dynamic Depth items,
/// GDepth in extended XMP.
@Suite(.timeLimit(.minutes(30)))
struct OrientationAndContainerTests {
    /// A stored 8×4 image (orientation 6) whose depth (4×2) and matte (4×2) carry position codes.
    @Test func exifOrientationTurnsEveryPlane() throws {
        let sw = 64, sh = 32
        var stored = RGBImage8(width: sw, height: sh, channels: 3, repeating: 0)
        // Left half dark, right half bright: after a right turn, the bright half is at the bottom.
        for y in 0..<sh { for x in 0..<sw { for c in 0..<3 { stored[x, y, c] = x < sw / 2 ? 20 : 230 } } }
        let depthStored = Raster<UInt8>(width: 32, height: 16, channels: 1, samples: (0..<512).map { ($0 % 32) < 16 ? 40 : 220 })
        let matteStored = Raster<UInt8>(width: 32, height: 16, channels: 1, samples: (0..<512).map { ($0 / 32) < 8 ? 255 : 0 })
        // Intrinsics in the stored (sensor) frame, 64×32: fx 50, fy 60, principal point (40, 10), column by column.
        let depthXMP = BadInputTests.depthXMP("""
            <apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>3</apdi:FloatMaxValue>
            <depthData:IntrinsicMatrix><rdf:Seq><rdf:li>50</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li>
            <rdf:li>60</rdf:li><rdf:li>0</rdf:li><rdf:li>40</rdf:li><rdf:li>10</rdf:li><rdf:li>1</rdf:li></rdf:Seq></depthData:IntrinsicMatrix>
            <depthData:IntrinsicMatrixReferenceWidth>64</depthData:IntrinsicMatrixReferenceWidth>
            <depthData:IntrinsicMatrixReferenceHeight>32</depthData:IntrinsicMatrixReferenceHeight>
            <depthData:LensDistortionCenterOffsetX>40</depthData:LensDistortionCenterOffsetX>
            <depthData:LensDistortionCenterOffsetY>10</depthData:LensDistortionCenterOffsetY>
            """)
        let matteXMP = XMPWriter.packet([.text(XMPNamespace.apdi, "AuxiliaryImageType", AuxiliaryKind.urn(for: .hair))])
        let depthJPEG = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(depthXMP), into: try JPEGEncoder.encodeGray(depthStored, quality: 100))
        let matteJPEG = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(matteXMP), into: try JPEGEncoder.encodeGray(matteStored, quality: 100))
        let exif = CodecTests.exifBlock(orientation: 6, bigEndian: false)
        let head = try JPEGSegmentInserter.segment(app: 1, payload: exif.bytes)
        let file = try PhotoWriter.multiPicture(primaryPixels: try JPEGEncoder.encode(stored, quality: 95), head: head, auxiliary: [depthJPEG, matteJPEG])

        let photo = try PhotoReader.read(data: file)
        #expect(photo.orientation == .right)
        #expect(photo.width == sh && photo.height == sw)
        #expect(photo.image[sh / 2, 4, 0] < 60 && photo.image[sh / 2, sw - 4, 0] > 190)
        let depth = try #require(photo.depth)
        #expect(depth.map.width == 16 && depth.map.height == 32)
        // Stored left (far, 40) → upright top; stored right (near, 220) → upright bottom.
        #expect(depth.map[8, 2, 0] < depth.map[8, 29, 0])
        let matte = try #require(photo.matte(.hair)).plane
        #expect(matte.width == 16 && matte.height == 32)
        // The calibration turns with the planes: a right turn maps stored (x, y) to upright (32 − y, x).
        let cal = try #require(depth.calibration)
        #expect(cal.referenceWidth == 32 && cal.referenceHeight == 64)
        #expect(cal.fx == 60 && cal.fy == 50 && cal.cx == 22 && cal.cy == 40)
        #expect(cal.lensDistortionCenter?.x == 22 && cal.lensDistortionCenter?.y == 40)
        // Stored top rows (matte 1) → upright right columns.
        #expect(matte[14, 16, 0] > 0.9 && matte[1, 16, 0] < 0.1)
        // Written back, the file is upright with orientation 1 and the same planes.
        let rewritten = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(photo))
        #expect(rewritten.orientation == .up && rewritten.width == sh && rewritten.height == sw)
        #expect(rewritten.depth?.map.width == 16)
    }

    /// Android Dynamic Depth: a RangeLinear 16-bit PNG depth item appended after the primary image.
    @Test func dynamicDepthContainer() throws {
        let w = 20, h = 10, near = 0.5, far = 4.5
        let values = (0..<(w * h)).map { UInt16($0 * 300) }
        let depthPNG = try PNGCodec.encode(Raster<UInt16>(width: w, height: h, channels: 1, samples: values))
        let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:Device="http://ns.google.com/photos/dd/1.0/device/"
          xmlns:Container="http://ns.google.com/photos/dd/1.0/container/" xmlns:Item="http://ns.google.com/photos/dd/1.0/item/"
          xmlns:Camera="http://ns.google.com/photos/dd/1.0/camera/" xmlns:DepthMap="http://ns.google.com/photos/dd/1.0/depthmap/">
        <Device:Container rdf:parseType="Resource"><Container:Directory><rdf:Seq>
          <rdf:li><Container:Item Item:Mime="image/jpeg" Item:Length="0" Item:DataURI="primary_image"/></rdf:li>
          <rdf:li><Container:Item Item:Mime="image/png" Item:Length="\(depthPNG.count)" Item:DataURI="android/depthmap"/></rdf:li>
        </rdf:Seq></Container:Directory></Device:Container>
        <Device:Cameras><rdf:Seq><rdf:li><Device:Camera>
          <Camera:DepthMap DepthMap:Format="RangeLinear" DepthMap:Units="Meters" DepthMap:Near="\(near)" DepthMap:Far="\(far)" DepthMap:DepthURI="android/depthmap"/>
        </Device:Camera></rdf:li></rdf:Seq></Device:Cameras>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
        let primary = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp),
                                                     into: try JPEGEncoder.encode(RGBImage8(width: 40, height: 20, channels: 3, repeating: 100)))
        let photo = try PhotoReader.read(data: primary + depthPNG)
        let depth = try #require(photo.depth)
        #expect(depth.kind == .disparity && depth.accuracy == .absolute)
        #expect(depth.map.width == w && depth.map.height == h)
        for i in [0, 7, 150, 199] {
            let metres = near + Double(values[i]) / 65535 * (far - near)
            #expect(abs(Double(depth.map.samples[i]) - 1 / metres) < 1e-5)
        }
        // The same file cut inside the depth item fails cleanly.
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: primary + depthPNG.prefix(depthPNG.count / 2)) }
    }

    /// GDepth split over extended XMP chunks (out of order), RangeInverse, 8-bit PNG.
    @Test func gDepthInExtendedXMP() throws {
        let w = 16, h = 8, near = 10.0, far = 100.0
        let stored = (0..<(w * h)).map { UInt8($0 * 2) }
        let png = try PNGCodec.encode(Raster<UInt8>(width: w, height: h, channels: 1, samples: stored))
        let guid = "0123456789ABCDEF0123456789ABCDEF"
        let main = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/"
          xmpNote:HasExtendedXMP="\(guid)" GDepth:Format="RangeInverse" GDepth:Near="\(near)" GDepth:Far="\(far)" GDepth:Mime="image/png"/>
        </rdf:RDF></x:xmpmeta>
        """
        let extended = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/" GDepth:Data="\(Data(png).base64EncodedString())"/>
        </rdf:RDF></x:xmpmeta>
        """.utf8)
        var segments = try JPEGSegmentInserter.xmpSegment(main)
        let half = extended.count / 2
        for (offset, chunk) in [(half, Array(extended[half...])), (0, Array(extended[..<half]))] {
            var w = ByteWriter()
            w.append(JPEGStructure.extendedXMPSignature + Array(guid.utf8))
            w.u32(UInt32(extended.count)); w.u32(UInt32(offset)); w.append(chunk)
            segments += try JPEGSegmentInserter.segment(app: 1, payload: w.bytes)
        }
        let file = try JPEGSegmentInserter.insert(segments, into: try JPEGEncoder.encode(RGBImage8(width: 32, height: 16, channels: 3, repeating: 50)))
        let photo = try PhotoReader.read(data: file)
        let depth = try #require(photo.depth)
        #expect(depth.accuracy == .relative)
        for i in [0, 50, 127] {
            let dn = Double(stored[i]) / 255
            let metres = far * near / (far - dn * (far - near))
            #expect(abs(Double(depth.map.samples[i]) - 1 / metres) < 1e-6)
        }
        // Missing the second chunk: the extended XMP is incomplete.
        let structure = try JPEGStructure(file)
        let lastChunk = try #require(structure.segments.last { $0.marker == 0xE1 })
        var cut = file
        cut.removeSubrange((lastChunk.payload.lowerBound - 4)..<lastChunk.payload.upperBound)
        #expect(throws: PhotoError.self) { try PhotoReader.read(data: cut) }
    }

    /// Lossless depth (SOF3) is decoded by Depthbook's own decoder (`LosslessJPEGTests`). A lossless variant it
    /// does not read (subsampled components) leaves the photo loading, with the depth listed as an auxiliary
    /// image instead of a plane; a baseline stream merely labelled SOF3 is broken data, an error.
    @Test func losslessDepthItCannotReadIsListedNotFatal() throws {
        let xmp = BadInputTests.depthXMP("<apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>2</apdi:FloatMaxValue>")
        let primary = try JPEGEncoder.encode(RGBImage8(width: 96, height: 64, channels: 3, repeating: 70))
        var subsampled = try LosslessJPEGTests.bytes("depth16-p1.jpg")
        let frame = try #require(LosslessJPEGTests.find([0xFF, 0xC3], in: subsampled))
        subsampled[frame + 11] = 0x21  // the component's sampling factors, 2×1
        let photo = try PhotoReader.read(data: try LosslessJPEGTests.mpfFile(depth: subsampled, xmp: xmp))
        #expect(photo.depth == nil)
        #expect(photo.auxiliary.contains { $0.kind == "depth" && $0.width == 48 })

        var relabelled = try JPEGSegmentInserter.insert(try JPEGSegmentInserter.xmpSegment(xmp),
                                                        into: try JPEGEncoder.encodeGray(Raster(width: 8, height: 8, channels: 1, repeating: 9), quality: 95))
        let sof = try #require(try JPEGStructure(relabelled).segments.first { $0.marker == 0xC0 })
        relabelled[sof.payload.lowerBound - 3] = 0xC3
        let file = try PhotoWriter.multiPicture(primaryPixels: primary, head: [], auxiliary: [relabelled])
        #expect(throws: PhotoError.corrupt("the depth map uses predictor 0 (1 to 7 exist)")) { try PhotoReader.read(data: file) }
    }
}
