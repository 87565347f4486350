import Foundation
import Testing
@testable import DepthbookServer

/// Path safety: nothing outside the root is ever served, however the path is spelled.
@Suite(.timeLimit(.minutes(30)))
struct StaticFilesTests {
    /// A throwaway tree: root/index.html, root/js/app.mjs, root/link -> ../secret.txt, root/.env, secret.txt beside root.
    func makeTree() throws -> (base: String, files: StaticFiles) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)").path
        let fm = FileManager.default
        try fm.createDirectory(atPath: base + "/root/js", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: base + "/root/sub", withIntermediateDirectories: true)
        try Data("<h1>page</h1>".utf8).write(to: URL(fileURLWithPath: base + "/root/index.html"))
        try Data("export {}".utf8).write(to: URL(fileURLWithPath: base + "/root/js/app.mjs"))
        try Data("top secret".utf8).write(to: URL(fileURLWithPath: base + "/secret.txt"))
        try Data("KEY=1".utf8).write(to: URL(fileURLWithPath: base + "/root/.env"))
        try fm.createSymbolicLink(atPath: base + "/root/link.txt", withDestinationPath: base + "/secret.txt")
        try fm.createSymbolicLink(atPath: base + "/root/out", withDestinationPath: base)
        try fm.createSymbolicLink(atPath: base + "/root/inside.html", withDestinationPath: base + "/root/index.html")
        guard let files = StaticFiles(root: base + "/root") else { throw CocoaError(.fileNoSuchFile) }
        return (base, files)
    }

    @Test func servesFilesUnderTheRoot() throws {
        let (base, files) = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(files.resolve("/") == .file(path: files.root + "/index.html"))
        #expect(files.resolve("/js/app.mjs") == .file(path: files.root + "/js/app.mjs"))
        #expect(files.resolve("/js%2Fapp.mjs") == .file(path: files.root + "/js/app.mjs"))
        #expect(files.resolve("/inside.html") == .file(path: files.root + "/index.html"), "a symlink inside the root is fine")
        #expect(files.resolve("/missing.js") == .notFound)
        #expect(files.resolve("/sub") == .notFound, "a directory without index.html")
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/js/../../secret.txt", "/js/%2e%2e/%2e%2e/secret.txt",
        "/link.txt", "/out/secret.txt", "/.env", "/%2eenv", "/js/..%5c..%5csecret.txt", "/%00index.html", "/%zz", "/./index.html",
        "/%252e%252e/secret.txt",
    ])
    func refusesEverythingOutside(path: String) throws {
        let (base, files) = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let resolution = files.resolve(path)
        #expect(resolution == .forbidden || resolution == .notFound)
        let response = files.response(for: path, ifNoneMatch: nil)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("secret"))
    }

    @Test func absolutePathsStayUnderTheRoot() throws {
        let (base, files) = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(files.resolve("/" + base + "/secret.txt") == .notFound)
        #expect(files.resolve("//etc/passwd") == .notFound)
    }

    @Test func typesCachingAndRevalidation() throws {
        let (base, files) = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let first = files.response(for: "/js/app.mjs", ifNoneMatch: nil)
        #expect(first.status == 200)
        #expect(first.contentType == "text/javascript; charset=utf-8")
        #expect(first.headers.contains { $0.0 == "cache-control" && $0.1 == "no-cache" })
        let etag = try #require(first.headers.first { $0.0 == "etag" }?.1)
        let second = files.response(for: "/js/app.mjs", ifNoneMatch: etag)
        #expect(second.status == 304 && second.body.isEmpty)
        #expect(MIMETypes.type(forPath: "a.webp") == "image/webp")
        #expect(MIMETypes.type(forPath: "a.heic") == "image/heic")
        #expect(MIMETypes.type(forPath: "a.unknownext") == "application/octet-stream")
        #expect(MIMETypes.cacheControl(forPath: "a.png") == "public, max-age=86400")
    }

    @Test func percentDecoding() {
        #expect(PercentDecoding.decode("/a%20b") == "/a b")
        #expect(PercentDecoding.decode("%e2%82%ac") == "€")
        #expect(PercentDecoding.decode("%") == nil)
        #expect(PercentDecoding.decode("%g1") == nil)
        #expect(PercentDecoding.decode("%ff") == nil, "not UTF-8")
    }
}
