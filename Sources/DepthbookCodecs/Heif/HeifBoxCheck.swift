/// Checks that a HEIF file's top-level boxes fit in the file before libheif reads it.
///
/// libheif reads item data lazily, so a file cut inside the data of an item Depthbook never decodes
/// (an HDR gain map, say) would otherwise load without complaint. A cut file is a damaged upload and is
/// reported as such.
enum HeifBoxCheck {
    static func check(_ bytes: [UInt8]) throws {
        let r = ByteReader(bytes, what: "the HEIF box structure")
        var offset = 0
        var sawMeta = false
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else { throw PhotoError.truncated("the file ends inside a HEIF box header") }
            var size = Int(try r.u32(offset))
            let raw = try r.slice(offset + 4, count: 4)
            let printable = raw.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            let type = printable ? String(decoding: raw, as: UTF8.self) : "?"
            if size == 1 {
                guard offset + 16 <= bytes.count else { throw PhotoError.truncated("the file ends inside a HEIF box header") }
                let high = Int(try r.u32(offset + 8)), low = Int(try r.u32(offset + 12))
                guard high < 1 << 20 else { throw PhotoError.corrupt("the HEIF box '\(type)' claims an impossible size") }
                size = high << 32 | low
            } else if size == 0 {
                size = bytes.count - offset  // extends to the end of the file
            }
            guard size >= 8 else { throw PhotoError.corrupt("the HEIF box '\(type)' has size \(size)") }
            guard offset + size <= bytes.count else {
                throw PhotoError.truncated("the HEIF box '\(type)' needs \(offset + size - bytes.count) more bytes")
            }
            if type == "meta" { sawMeta = true }
            offset += size
        }
        guard sawMeta else { throw PhotoError.truncated("the HEIF file has no 'meta' box") }
    }
}
