import DepthbookEffects
import Foundation

/// One HTTP request as the router sees it (the transport fills it in).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: [String: String]
    public var ifNoneMatch: String?
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], ifNoneMatch: String? = nil, body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.ifNoneMatch = ifNoneMatch
        self.body = body
    }

    /// Splits `a=1&b=2` into a dictionary (percent-decoded; malformed pairs are skipped).
    public static func parseQuery(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard let key = parts.first.flatMap(PercentDecoding.decode) else { continue }
            result[key] = parts.count > 1 ? PercentDecoding.decode(parts[1].replacingOccurrences(of: "+", with: " ")) ?? "" : ""
        }
        return result
    }
}

/// Everything HTTP beside the socket: the page, `/n/<id>`, `/healthz`, uploads and exports. Knows no HTML;
/// it hands out `Public/` files as bytes.
public struct HTTPRouter: Sendable {
    let publicFiles: StaticFiles?
    let exportFiles: StaticFiles?
    let uploads: UploadHandler
    let stats: @Sendable () -> ServerStats

    public init(publicDirectory: String, exportsDirectory: String, uploads: UploadHandler,
                stats: @escaping @Sendable () -> ServerStats) {
        publicFiles = StaticFiles(root: publicDirectory)
        exportFiles = StaticFiles(root: exportsDirectory)
        self.uploads = uploads
        self.stats = stats
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST" {
            guard request.path == "/api/upload" else { return .text(404, "not found") }
            return uploads.upload(request.body, depthFor: request.query["depthFor"])
        }
        guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "method not allowed") }
        if request.path == "/healthz" { return .text(200, "ok") }
        if request.path == "/api/stats" { return .json(200, stats()) }
        if request.path == "/api/upload" { return .text(405, "upload with POST") }
        if request.path.hasPrefix("/n/") {
            // The page itself opens the notebook named in its URL over the socket.
            let name = String(request.path.dropFirst(3))
            guard Cell.isValidNotebookName(name) else { return .text(404, "not found") }
            return page(request)
        }
        if request.path.hasPrefix("/exports/") {
            let name = String(request.path.dropFirst("/exports/".count))
            guard let exportFiles, ExportNaming.isValidFileName(name), case .file(let path) = exportFiles.resolve("/" + name) else {
                return .text(404, "not found")
            }
            return StaticFiles.fileResponse(path: path, ifNoneMatch: request.ifNoneMatch,
                                            extraHeaders: [("content-disposition", "attachment; filename=\"\(name)\"")])
        }
        guard let publicFiles else { return .text(404, "not found") }
        return publicFiles.response(for: request.path, ifNoneMatch: request.ifNoneMatch)
    }

    private func page(_ request: HTTPRequest) -> HTTPResponse {
        guard let publicFiles else { return .text(404, "not found") }
        return publicFiles.response(for: "/index.html", ifNoneMatch: request.ifNoneMatch)
    }
}

extension Cell {
    /// Names in `/n/<name>`: a bundled notebook's file name or a saved id (the cell id alphabet, 1-64 long).
    static func isValidNotebookName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }
}

extension ExportNaming {
    static func isValidFileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 128 && !name.hasPrefix(".") && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_"
        }
    }
}
