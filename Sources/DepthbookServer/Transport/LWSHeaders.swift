import CWebSockets

/// Reading a request's headers and query out of libwebsockets (service thread only, during the callback
/// that has them).
enum LWSHeaders {
    static func value(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of every header lws recognises (the URI and its query, cookies, authorisation, referer, …), added
    /// up. Headers lws does not know are kept in the same buffer but cannot be listed; that buffer's own size
    /// (`LWSContext.headerBufferBytes`) bounds them.
    static func knownLength(_ wsi: OpaquePointer) -> Int {
        (0..<Int(WSI_TOKEN_COUNT.rawValue)).reduce(0) { sum, token in
            sum + max(0, Int(lws_hdr_total_length(wsi, lws_token_indexes(rawValue: UInt32(token)))))
        }
    }

    /// The URL's query arguments (`a=1&b=2`), as lws splits them.
    static func query(_ wsi: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        var index: Int32 = 0
        while let fragment = fragment(wsi, WSI_TOKEN_HTTP_URI_ARGS, index) {
            let parts = fragment.split(separator: "=", maxSplits: 1).map(String.init)
            if let key = parts.first { query[key] = parts.count > 1 ? parts[1] : "" }
            index += 1
        }
        return query
    }

    private static func fragment(_ wsi: OpaquePointer, _ token: lws_token_indexes, _ index: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 1024)
        let copied = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), token, index)
        guard copied > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
