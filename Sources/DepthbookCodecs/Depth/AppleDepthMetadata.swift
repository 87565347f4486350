import DepthbookEngine
import Foundation

/// Apple's depth XMP (`apdi:` and `depthData:`): how stored integers map to floats, and the camera facts.
///
/// Apple stores disparity as 8-bit integers plus a float range: `value = FloatMin + (stored − IntMin) /
/// (IntMax − IntMin) × (FloatMax − FloatMin)`. Matrices are written column by column (simd's layout).
struct AppleDepthMetadata: Sendable {
    var kind: DepthKind?
    var floatMin: Double?
    var floatMax: Double?
    var intMin: Double = 0
    var intMax: Double = 255
    /// Whether the XMP states `IntMaxValue` (otherwise a lossless map's own precision sets it).
    var statesIntMax = false
    /// `apdi:StoredFormat`, a pixel format code: 'L008' (1278226488) for 8-bit integers, 'hdis'/'hdep' for half floats.
    var storedFormat: Int?
    /// Stored integers at or below this are holes (Depthbook's writer; Apple uses 16-bit NaN instead).
    var holeBelow: Double?
    var accuracy: DepthAccuracy?
    var isFiltered: Bool?
    var quality: String?
    var calibration: CameraCalibration?

    init() {}

    /// Reads the fields from an XMP packet. Throws `badMetadata` when present values are junk.
    init(xmp: XMPDocument) throws {
        let apdi = XMPNamespace.apdi, dd = XMPNamespace.depthData
        switch xmp.text(apdi, "AuxiliaryImageType")?.lowercased() {
        case "disparity": kind = .disparity
        case "depth": kind = .depth
        default: kind = nil
        }
        floatMin = try xmp.number(apdi, "FloatMinValue")
        floatMax = try xmp.number(apdi, "FloatMaxValue")
        if let v = try xmp.number(apdi, "IntMinValue") { intMin = v }
        if let v = try xmp.number(apdi, "IntMaxValue") { intMax = v; statesIntMax = true }
        storedFormat = try xmp.number(apdi, "StoredFormat").flatMap { $0.isFinite && abs($0) < 1e10 ? Int($0) : nil }
        holeBelow = try xmp.number(XMPNamespace.depthbook, "HoleIntValue")
        if let lo = floatMin, let hi = floatMax, lo > hi {
            throw PhotoError.badMetadata("the depth range is inverted (FloatMinValue \(lo) > FloatMaxValue \(hi))")
        }
        if intMax <= intMin { throw PhotoError.badMetadata("the stored depth range is empty (IntMinValue \(intMin), IntMaxValue \(intMax))") }
        switch xmp.text(dd, "Accuracy")?.lowercased() {
        case "absolute": accuracy = .absolute
        case "relative": accuracy = .relative
        case nil: accuracy = nil
        case let other?: throw PhotoError.badMetadata("unknown depth accuracy \"\(other)\"")
        }
        if let f = xmp.text(dd, "Filtered")?.lowercased() { isFiltered = (f == "true" || f == "1") }
        quality = xmp.text(dd, "Quality")
        calibration = try AppleDepthMetadata.calibration(xmp)
    }

    /// The calibration, when the intrinsic matrix and its reference size are present.
    static func calibration(_ xmp: XMPDocument) throws -> CameraCalibration? {
        let dd = XMPNamespace.depthData
        guard let k = xmp.value(dd, "IntrinsicMatrix") else { return nil }
        guard let values = k.doubles, values.count == 9 else { throw PhotoError.badMetadata("depthData:IntrinsicMatrix is not nine numbers") }
        guard let refW = try xmp.number(dd, "IntrinsicMatrixReferenceWidth"), let refH = try xmp.number(dd, "IntrinsicMatrixReferenceHeight"),
              refW > 0, refH > 0 else {
            throw PhotoError.badMetadata("the intrinsic matrix has no reference size")
        }
        var cal = CameraCalibration(intrinsics: rowMajor(columnMajor3x3: values), referenceWidth: refW, referenceHeight: refH)
        if let e = xmp.value(dd, "ExtrinsicMatrix") {
            guard let v = e.doubles, v.count == 12 else { throw PhotoError.badMetadata("depthData:ExtrinsicMatrix is not twelve numbers") }
            // Four columns of three: rotation columns, then translation.
            cal.extrinsics = (0..<3).flatMap { r in (0..<4).map { c in v[c * 3 + r] } }
        }
        cal.pixelSize = try xmp.number(dd, "PixelSize")
        if let x = try xmp.number(dd, "LensDistortionCenterOffsetX"), let y = try xmp.number(dd, "LensDistortionCenterOffsetY") {
            cal.lensDistortionCenter = (x, y)
        }
        cal.lensDistortionLookupTable = try floats(xmp, "LensDistortionLookupTable")
        cal.inverseLensDistortionLookupTable = try floats(xmp, "InverseLensDistortionLookupTable")
        cal.lensDistortionCoefficients = try floats(xmp, "LensDistortionCoefficients")
        cal.inverseLensDistortionCoefficients = try floats(xmp, "InverseLensDistortionCoefficients")
        return cal
    }

    /// Apple writes simd matrices column by column; a file that wrote rows (cx at index 2) is taken as is.
    static func rowMajor(columnMajor3x3 v: [Double]) -> [Double] {
        let looksRowMajor = v[2] != 0 && v[5] != 0 && v[6] == 0 && v[7] == 0
        if looksRowMajor { return v }
        return [v[0], v[3], v[6], v[1], v[4], v[7], v[2], v[5], v[8]]
    }

    /// A float array written either as an `rdf:Seq` of numbers or as base64 of little-endian float32s.
    static func floats(_ xmp: XMPDocument, _ name: String) throws -> [Double]? {
        guard let value = xmp.value(XMPNamespace.depthData, name) else { return nil }
        if let numbers = value.doubles { return numbers }
        if let text = value.text?.trimmingSpaces, let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
           data.count % 4 == 0, !data.isEmpty {
            return stride(from: 0, to: data.count, by: 4).map { i in
                let bits = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
                return Double(Float(bitPattern: bits))
            }
        }
        throw PhotoError.badMetadata("depthData:\(name) is neither a list of numbers nor base64 floats")
    }

    /// 'hdis' and 'hdep': half-float disparity and depth, Apple's native depth formats.
    static let halfFloatFormats: Set<Int> = [1_751_411_059, 1_751_410_032]

    /// Whether 16-bit stored samples are half floats (the XMP says the stored format is 'hdis' or 'hdep').
    var storesHalfFloats: Bool { storedFormat.map(Self.halfFloatFormats.contains) ?? false }

    /// The mapping for exact integers of `precision` bits (a lossless map): `IntMaxValue` defaults to the
    /// largest such integer, and a sample below a positive `IntMinValue` lies outside the stated range, so it
    /// is a hole (unless the XMP names its own hole value). Lossy 8-bit maps keep clamping instead: ringing
    /// moves their samples by a few levels.
    func lossless(precision: Int) -> AppleDepthMetadata {
        var m = self
        if !statesIntMax { m.intMax = Double((1 << precision) - 1) }
        if m.holeBelow == nil, m.intMin > 0 { m.holeBelow = m.intMin - 1 }
        return m
    }

    /// Maps stored 8-bit (or wider) samples to depth values; nil ranges mean "unknown units" (0...1).
    func floats(fromStored stored: [UInt16]) -> [Float] {
        let lo = floatMin ?? 0, hi = floatMax ?? 1
        let scale = Float((hi - lo) / (intMax - intMin))
        let offset = Float(lo)
        let imin = Float(intMin)
        let hole = holeBelow.map { Float($0) }
        return stored.map { s in
            let v = Float(s)
            if let hole, v <= hole { return .nan }
            return offset + (max(v, imin) - imin) * scale
        }
    }
}

extension XMPDocument {
    /// A numeric property: nil when absent, `badMetadata` when present but not a number.
    func number(_ namespace: String, _ name: String) throws -> Double? {
        guard let value = value(namespace, name) else { return nil }
        guard let v = value.double else {
            throw PhotoError.badMetadata("\(name) is \"\(value.text ?? "not text")\", not a number")
        }
        return v
    }
}
