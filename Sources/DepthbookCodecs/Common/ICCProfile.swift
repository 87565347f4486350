/// Reads the human name of an ICC profile (its `desc` tag), which is how Depthbook notes a colour space.
enum ICCProfile {
    /// "Display P3", "sRGB IEC61966-2.1", ...; nil when the profile is unreadable.
    static func description(_ profile: [UInt8]) -> String? {
        let r = ByteReader(profile, what: "the ICC profile")
        guard let count = try? r.u32(128), count < 1000 else { return nil }
        for k in 0..<Int(count) {
            let e = 132 + k * 12
            guard let sig = try? r.u32(e), let offset = try? r.u32(e + 4), let size = try? r.u32(e + 8) else { return nil }
            guard sig == 0x6465_7363 /* 'desc' */ else { continue }
            let o = Int(offset)
            guard let type = try? r.u32(o), size >= 12 else { return nil }
            if type == 0x6465_7363 {  // 'desc': ASCII count then text
                guard let n = try? r.u32(o + 8), let text = try? r.slice(o + 12, count: Int(n)) else { return nil }
                return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
            }
            if type == 0x6D6C_7563 {  // 'mluc': first record, UTF-16BE
                guard let records = try? r.u32(o + 8), records > 0,
                      let length = try? r.u32(o + 20), let start = try? r.u32(o + 24),
                      let text = try? r.slice(o + Int(start), count: Int(length)) else { return nil }
                let units = stride(from: text.startIndex, to: text.endIndex - 1, by: 2).map { UInt16(text[$0]) << 8 | UInt16(text[$0 + 1]) }
                return String(decoding: units, as: UTF16.self)
            }
            return nil
        }
        return nil
    }

    /// The colour space name Depthbook reports: the profile's own name, or sRGB when there is none.
    static func colorSpaceName(_ profile: [UInt8]?) -> String {
        guard let profile, let name = description(profile)?.trimmingSpaces, !name.isEmpty else { return "sRGB" }
        return name
    }
}
