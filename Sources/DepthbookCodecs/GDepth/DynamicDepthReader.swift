import DepthbookEngine

/// Android Dynamic Depth 1.0: a `Container:Directory` in XMP lists items appended after the primary JPEG.
///
/// Items follow the primary image back to back, in directory order; each states its length except the
/// primary. So item k ends where item k+1 starts, and the last item ends at the end of the file.
enum DynamicDepthReader {
    struct Item {
        let mime: String
        let uri: String
        let length: Int
    }

    /// Reads the directory; nil when the XMP has none.
    static func directory(_ documents: [XMPDocument]) throws -> [Item]? {
        for doc in documents {
            guard let container = doc.value(XMPNamespace.ddDevice, "Container") else { continue }
            guard let list = container.field(XMPNamespace.ddContainer, "Directory")?.items else {
                throw PhotoError.badMetadata("the Dynamic Depth container has no directory")
            }
            return try list.map { li in
                let item = li.field(XMPNamespace.ddContainer, "Item") ?? li
                let mime = item.field(XMPNamespace.ddItem, "Mime")?.text ?? ""
                let uri = item.field(XMPNamespace.ddItem, "DataURI")?.text ?? ""
                let lengthText = item.field(XMPNamespace.ddItem, "Length")?.text ?? "0"
                guard let length = Int(lengthText.trimmingSpaces), length >= 0 else {
                    throw PhotoError.badMetadata("a Dynamic Depth item length is \"\(lengthText)\"")
                }
                return Item(mime: mime, uri: uri, length: length)
            }
        }
        return nil
    }

    /// The byte ranges of the appended items, keyed by URI.
    static func locate(_ items: [Item], fileSize: Int) throws -> [String: Range<Int>] {
        var ranges: [String: Range<Int>] = [:]
        var end = fileSize
        for item in items.dropFirst().reversed() {
            let start = end - item.length
            guard start >= 0 else { throw PhotoError.truncated("the Dynamic Depth items are longer than the file") }
            ranges[item.uri] = start..<end
            end = start
        }
        return ranges
    }

    /// Depth from the first camera's DepthMap, or nil when the XMP has no Dynamic Depth.
    static func depth(in documents: [XMPDocument], file: [UInt8], orientation: Orientation, limits: DecodeLimits) throws -> DepthData? {
        let limits = limits.auxiliary
        guard let items = try directory(documents) else { return nil }
        var depthMap: XMPValue?
        for doc in documents {
            guard let cameras = doc.value(XMPNamespace.ddDevice, "Cameras")?.items else { continue }
            for camera in cameras {
                let fields = camera.field(XMPNamespace.ddDevice, "Camera") ?? camera
                if let d = fields.field(XMPNamespace.ddCamera, "DepthMap") { depthMap = d; break }
            }
        }
        guard let depthMap else { return nil }
        func text(_ name: String) -> String? { depthMap.field(XMPNamespace.ddDepthMap, name)?.text?.trimmingSpaces }
        func number(_ name: String) throws -> Double? {
            guard let t = text(name) else { return nil }
            guard let v = Double(t) else { throw PhotoError.badMetadata("DepthMap:\(name) is \"\(t)\", not a number") }
            return v
        }
        guard let uri = text("DepthURI") else { throw PhotoError.badMetadata("the Dynamic Depth map names no item") }
        let ranges = try locate(items, fileSize: file.count)
        guard let range = ranges[uri] else { throw PhotoError.badMetadata("the depth item \(uri) is not in the container") }
        let format = try GoogleDepthRange.parseFormat(text("Format"))
        let (near, far) = try GoogleDepthRange.validate(near: try number("Near"), far: try number("Far"))
        let normalized = try GoogleDepthRange.normalizedPlane(Array(file[range]), limits: limits)
        let map = GoogleDepthRange.disparity(normalized: normalized, format: format, near: near, far: far).upright(orientation)
        let units = text("Units")?.lowercased()
        let metric = units == "meters" || units == "m"
        return DepthData(kind: .disparity, map: map, accuracy: metric ? .absolute : .relative, isFiltered: true)
    }
}
