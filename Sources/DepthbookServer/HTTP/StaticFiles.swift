import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Serves files from one directory (`Public/`, or the exports folder) and nothing outside it.
///
/// The URL path is percent-decoded first, then every segment is checked (no `..`, `.`, hidden names,
/// NUL or backslash), then the joined path is resolved with `realpath` and must still lie under the
/// root's own real path, which also catches symlinks pointing out.
public struct StaticFiles: Sendable {
    public let root: String

    /// `root` must exist; it is resolved once so later comparisons are against its real path.
    public init?(root: String) {
        guard let resolved = StaticFiles.realPath(root) else { return nil }
        self.root = resolved
    }

    public enum Resolution: Sendable, Equatable {
        case file(path: String)
        case notFound
        case forbidden
    }

    /// Maps a URL path (`/js/main.js`, without the query) to a regular file under the root.
    public func resolve(_ urlPath: String) -> Resolution {
        guard let decoded = PercentDecoding.decode(urlPath) else { return .forbidden }
        if decoded.contains("\0") || decoded.contains("\\") { return .forbidden }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
        for segment in segments where segment == ".." || segment == "." || segment.hasPrefix(".") {
            return .forbidden
        }
        var candidate = ([root] + segments.map(String.init)).joined(separator: "/")
        if isDirectory(candidate) { candidate += "/index.html" }
        guard let real = StaticFiles.realPath(candidate) else { return .notFound }
        guard real.hasPrefix(root + "/") else { return .forbidden }
        guard isRegularFile(real) else { return .notFound }
        return .file(path: real)
    }

    /// A response for `urlPath`: the file with its MIME type and cache policy, 304 when the page's copy is
    /// current, or a plain 403/404.
    public func response(for urlPath: String, ifNoneMatch: String?) -> HTTPResponse {
        switch resolve(urlPath) {
        case .forbidden: return .text(403, "forbidden")
        case .notFound: return .text(404, "not found")
        case .file(let path): return StaticFiles.fileResponse(path: path, ifNoneMatch: ifNoneMatch)
        }
    }

    static func fileResponse(path: String, ifNoneMatch: String?, extraHeaders: [(String, String)] = []) -> HTTPResponse {
        guard let data = FileManager.default.contents(atPath: path) else { return .text(404, "not found") }
        let body = Array(data)
        let etag = "\"\(SHA256.hex(body).prefix(16))\""
        var headers: [(String, String)] = [("cache-control", MIMETypes.cacheControl(forPath: path)), ("etag", etag)]
        headers += extraHeaders
        headers.append(("x-content-type-options", "nosniff"))
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return HTTPResponse(status: 304, contentType: MIMETypes.type(forPath: path), headers: headers, body: [])
        }
        return HTTPResponse(status: 200, contentType: MIMETypes.type(forPath: path), headers: headers, body: body)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// Percent-decoding for URL paths; nil for malformed escapes or bytes that are not UTF-8.
public enum PercentDecoding {
    public static func decode(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Content types by extension, including the ones libwebsockets does not know (.mjs, .webp, .heic, .wasm),
/// and how long browsers may keep each kind.
public enum MIMETypes {
    static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "map": "application/json", "txt": "text/plain; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "ico": "image/x-icon", "wasm": "application/wasm",
        "woff2": "font/woff2", "woff": "font/woff", "webmanifest": "application/manifest+json", "mp4": "video/mp4",
    ]

    public static func type(forPath path: String) -> String {
        byExtension[fileExtension(path)] ?? "application/octet-stream"
    }

    /// Pages and modules are revalidated every time (their names carry no version, the ETag makes it cheap);
    /// images and fonts may be kept for a day.
    public static func cacheControl(forPath path: String) -> String {
        switch fileExtension(path) {
        case "html", "htm", "js", "mjs", "css", "json", "map", "webmanifest": return "no-cache"
        default: return "public, max-age=86400"
        }
    }

    private static func fileExtension(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return path[path.index(after: dot)...].lowercased()
    }
}
