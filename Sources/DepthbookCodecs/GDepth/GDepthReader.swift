import DepthbookEngine
import Foundation

/// Google Camera's Lens Blur depth (the GDepth schema): a depth image as base64 in (extended) XMP.
enum GDepthReader {
    /// Depth from the GDepth properties of `documents` (main and extended XMP), or nil when there are none.
    static func depth(in documents: [XMPDocument], orientation: Orientation, limits: DecodeLimits) throws -> DepthData? {
        let limits = limits.auxiliary
        func text(_ name: String) -> String? { documents.lazy.compactMap { $0.text(XMPNamespace.gDepth, name) }.first }
        func number(_ name: String) throws -> Double? {
            for d in documents { if let v = try d.number(XMPNamespace.gDepth, name) { return v } }
            return nil
        }
        guard let data = text("Data") else { return nil }
        let format = try GoogleDepthRange.parseFormat(text("Format"))
        let (near, far) = try GoogleDepthRange.validate(near: try number("Near"), far: try number("Far"))
        guard let bytes = Data(base64Encoded: data, options: .ignoreUnknownCharacters) else {
            throw PhotoError.badMetadata("GDepth:Data is not base64")
        }
        let normalized = try GoogleDepthRange.normalizedPlane([UInt8](bytes), limits: limits)
        let map = GoogleDepthRange.disparity(normalized: normalized, format: format, near: near, far: far).upright(orientation)
        let units = text("Units")?.lowercased()
        let metric = units == "m" || units == "meters" || units == "metres"
        return DepthData(kind: .disparity, map: map, accuracy: metric ? .absolute : .relative, isFiltered: true)
    }

    /// The GImage original (the photo before the blur was applied), listed as an auxiliary image.
    static func originalImage(in documents: [XMPDocument]) -> AuxiliaryImageInfo? {
        guard let data = documents.lazy.compactMap({ $0.text(XMPNamespace.gImage, "Data") }).first,
              let bytes = Data(base64Encoded: data, options: .ignoreUnknownCharacters),
              let size = try? TurboJPEGDecoder.size(of: [UInt8](bytes)[...]) else { return nil }
        return AuxiliaryImageInfo(kind: "originalImage", urn: nil, width: size.width, height: size.height)
    }
}
