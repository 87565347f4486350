import DepthbookDocument
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
    /// Whether the client presented the access token (always true when the studio has none).
    public var authorized: Bool
    /// Whether the studio has an access token at all.
    public var tokenRequired: Bool
    /// Whether the link's own `?token=` is the studio's (a valid cookie beside a wrong link is still refused).
    public var linkTokenIsValid: Bool

    public init(method: String, path: String, query: [String: String] = [:], ifNoneMatch: String? = nil, body: [UInt8] = [],
                authorized: Bool = true, tokenRequired: Bool = false, linkTokenIsValid: Bool = true) {
        self.linkTokenIsValid = linkTokenIsValid
        self.method = method
        self.path = path
        self.query = query
        self.ifNoneMatch = ifNoneMatch
        self.body = body
        self.authorized = authorized
        self.tokenRequired = tokenRequired
    }
}

/// Everything HTTP beside the socket: the page, `/n/<id>`, `/healthz`, uploads and exports. Knows no HTML;
/// it hands out `Public/` files as bytes.
public struct HTTPRouter: Sendable {
    let publicFiles: StaticFiles?
    let exportFiles: StaticFiles?
    let uploads: UploadHandler
    let stats: @Sendable () -> ServerStats
    /// The Prometheus exposition text, made at each scrape.
    let metrics: @Sendable () -> [UInt8]

    public init(publicDirectory: String, exportsDirectory: String, uploads: UploadHandler,
                stats: @escaping @Sendable () -> ServerStats, metrics: @escaping @Sendable () -> [UInt8] = { [] }) {
        publicFiles = StaticFiles(root: publicDirectory)
        exportFiles = StaticFiles(root: exportsDirectory)
        self.uploads = uploads
        self.stats = stats
        self.metrics = metrics
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.method == "POST" {
            guard request.path == "/api/upload" else { return .text(404, "not found") }
            guard request.authorized else { return Self.tokenNeeded("uploads") }
            return uploads.upload(request.body, depthFor: request.query["depthFor"], brighter: request.query["brighter"])
        }
        guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "method not allowed") }
        if let token = request.query["token"], request.tokenRequired {
            // A link carrying the token: keep it in a cookie and drop it from the address bar and history.
            guard request.linkTokenIsValid else { return .text(403, "the access token in this link is not the studio's") }
            let kept = request.query.filter { $0.key != "token" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            let location = kept.isEmpty ? request.path : request.path + "?" + kept.joined(separator: "&")
            return HTTPResponse(status: 303, contentType: "text/plain; charset=utf-8",
                                headers: [("location", location), ("set-cookie", AccessPolicy.cookie(for: token)),
                                          ("cache-control", "no-store")],
                                body: Array("signed in\n".utf8))
        }
        if request.path == "/healthz" { return .text(200, "ok") }
        if request.path == "/api/stats" { return .json(200, stats()) }
        if request.path == "/metrics" {
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                headers: [("cache-control", "no-store")], body: metrics())
        }
        if request.path == "/api/upload" { return .text(405, "upload with POST") }
        if request.path.hasPrefix("/n/") {
            // The page itself opens the notebook named in its URL over the socket.
            let name = String(request.path.dropFirst(3))
            guard Cell.isValidNotebookName(name) else { return .text(404, "not found") }
            return page(request)
        }
        if request.path.hasPrefix("/exports/") {
            guard request.authorized else { return Self.tokenNeeded("downloads of exports") }
            let name = String(request.path.dropFirst("/exports/".count))
            guard let exportFiles, ExportWriter.isValidFileName(name), case .file(let path) = exportFiles.resolve("/" + name) else {
                return .text(404, "not found")
            }
            return StaticFiles.fileResponse(path: path, ifNoneMatch: request.ifNoneMatch,
                                            extraHeaders: [("content-disposition", "attachment; filename=\"\(name)\"")])
        }
        guard let publicFiles else { return .text(404, "not found") }
        return publicFiles.response(for: request.path, ifNoneMatch: request.ifNoneMatch)
    }

    /// 401 for a request only a client with the access token may make.
    static func tokenNeeded(_ what: String) -> HTTPResponse {
        var response = HTTPResponse.jsonError(401, "\(what) need the studio's access token: open the link with ?token=… "
                                              + "from whoever runs it, or send Authorization: Bearer <token>")
        response.headers.append(("www-authenticate", "Bearer realm=\"depthbook\""))
        return response
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
