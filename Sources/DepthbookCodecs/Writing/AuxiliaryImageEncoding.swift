import DepthbookEngine
import Foundation

/// Depth and mattes as Apple's portrait JPEGs store them: 8-bit grey JPEGs, each with XMP describing it.
enum AuxiliaryImageEncoding {
    /// Stored integers used for valid depth when the map has holes; 0 marks a hole, and anything at or
    /// below `holeThreshold` reads back as one (JPEG ringing moves values by a few levels).
    static let validIntMinWithHoles = 32
    static let holeThreshold = 16

    /// The quality planes are written at: depth and mattes are smooth, and their precision matters more
    /// than their size.
    static func planeQuality(_ quality: Int) -> Int { max(quality, 95) }

    /// Quantises depth to 8 bits and describes the mapping, accuracy and calibration in XMP.
    static func depth(_ depth: DepthData, quality: Int) throws -> (jpeg: [UInt8], xmp: String) {
        guard let range = depth.range else { throw PhotoError.depthAllHoles }
        // The range as the shortest decimals that read back as the same Floats (0.508301, not 0.5083010196685791).
        let lo = Double("\(range.lowerBound)") ?? Double(range.lowerBound), hi = Double("\(range.upperBound)") ?? Double(range.upperBound)
        let hasHoles = depth.map.holeCount > 0
        let intMin = hasHoles ? validIntMinWithHoles : 0, intMax = 255
        let span = hi - lo
        let scale = span > 0 ? Double(intMax - intMin) / span : 0
        let stored = depth.map.samples.map { v -> UInt8 in
            if v.isNaN { return 0 }
            return UInt8(clamping: Int(((Double(v) - lo) * scale).rounded()) + intMin)
        }
        let jpeg = try JPEGEncoder.encodeGray(Raster(width: depth.map.width, height: depth.map.height, channels: 1, samples: stored),
                                              quality: planeQuality(quality))
        let apdi = XMPNamespace.apdi, dd = XMPNamespace.depthData
        var props: [XMPProperty] = [
            .number(apdi, "IntMaxValue", Double(intMax)),
            .number(apdi, "StoredFormat", 1_278_226_488),  // 'L008': 8-bit luminance
            .number(apdi, "NativeFormat", depth.kind == .disparity ? 1_751_411_059 : 1_751_410_032),  // 'hdis' / 'hdep'
            .number(apdi, "IntMinValue", Double(intMin)),
            .number(apdi, "FloatMaxValue", span > 0 ? hi : lo),
            .number(apdi, "FloatMinValue", lo),
            .text(apdi, "AuxiliaryImageType", depth.kind.rawValue),
            .text(dd, "Accuracy", depth.accuracy.rawValue),
            .text(dd, "Filtered", depth.isFiltered ? "True" : "False"),
        ]
        if hasHoles { props.append(.number(XMPNamespace.depthbook, "HoleIntValue", Double(holeThreshold))) }
        if let q = depth.quality { props.append(.text(dd, "Quality", q)) }
        if let c = depth.calibration { props += calibration(c) }
        return (jpeg, XMPWriter.packet(props))
    }

    /// Calibration fields as Apple writes them: matrices column by column, tables as base64 float32.
    static func calibration(_ c: CameraCalibration) -> [XMPProperty] {
        let dd = XMPNamespace.depthData
        let k = c.intrinsics
        var props: [XMPProperty] = [
            .numbers(dd, "IntrinsicMatrix", [k[0], k[3], k[6], k[1], k[4], k[7], k[2], k[5], k[8]]),
            .number(dd, "IntrinsicMatrixReferenceWidth", c.referenceWidth),
            .number(dd, "IntrinsicMatrixReferenceHeight", c.referenceHeight),
        ]
        if let e = c.extrinsics, e.count == 12 {
            props.append(.numbers(dd, "ExtrinsicMatrix", (0..<4).flatMap { col in (0..<3).map { row in e[row * 4 + col] } }))
        }
        if let p = c.pixelSize { props.append(.number(dd, "PixelSize", p)) }
        if let centre = c.lensDistortionCenter {
            props.append(.number(dd, "LensDistortionCenterOffsetX", centre.x))
            props.append(.number(dd, "LensDistortionCenterOffsetY", centre.y))
        }
        if let t = c.lensDistortionLookupTable { props.append(.text(dd, "LensDistortionLookupTable", base64Floats(t))) }
        if let t = c.inverseLensDistortionLookupTable { props.append(.text(dd, "InverseLensDistortionLookupTable", base64Floats(t))) }
        if let v = c.lensDistortionCoefficients { props.append(.numbers(dd, "LensDistortionCoefficients", v)) }
        if let v = c.inverseLensDistortionCoefficients { props.append(.numbers(dd, "InverseLensDistortionCoefficients", v)) }
        return props
    }

    /// Little-endian float32s in base64, the layout of AVCameraCalibrationData's lookup tables.
    static func base64Floats(_ values: [Double]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 4)
        for v in values {
            let bits = Float(v).bitPattern
            bytes += [UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8((bits >> 16) & 0xFF), UInt8(bits >> 24)]
        }
        return Data(bytes).base64EncodedString()
    }

    /// A matte as an 8-bit grey JPEG with Apple's XMP for its kind.
    static func matte(_ matte: Matte, quality: Int) throws -> (jpeg: [UInt8], xmp: String) {
        let stored = matte.plane.samples.map { v -> UInt8 in v.isNaN ? 0 : UInt8((min(max(v, 0), 1) * 255).rounded()) }
        let jpeg = try JPEGEncoder.encodeGray(Raster(width: matte.plane.width, height: matte.plane.height, channels: 1, samples: stored),
                                              quality: planeQuality(quality))
        let apdi = XMPNamespace.apdi
        let props: [XMPProperty]
        if matte.kind == .portraitEffectsMatte {
            props = [
                .text(apdi, "AuxiliaryImageSubType", "portraiteffectsmatte"),
                .number(apdi, "NativeFormat", 1_278_226_488),
                .text(apdi, "AuxiliaryImageType", "depth"),
                .number(apdi, "StoredFormat", 1_278_226_488),
                .number(XMPNamespace.portraitEffectsMatte, "PortraitEffectsMatteVersion", 65537),
            ]
        } else {
            props = [
                .text(apdi, "AuxiliaryImageType", AuxiliaryKind.urn(for: matte.kind)),
                .number(apdi, "NativeFormat", 1_278_226_488),
                .number(apdi, "StoredFormat", 1_278_226_488),
                .number(XMPNamespace.semanticSegmentationMatte, "SemanticSegmentationMatteVersion", 65536),
            ]
        }
        return (jpeg, XMPWriter.packet(props))
    }
}
