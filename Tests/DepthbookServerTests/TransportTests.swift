import DepthbookDocument
import DepthbookEffects
import Foundation
import Testing
@testable import DepthbookLoadtest
@testable import DepthbookServer
import DepthbookFrames

/// The real libwebsockets server on loopback, driven by the load test's own RFC 6455 client.
@Suite(.timeLimit(.minutes(30)))
struct TransportTests {
    func withServer(_ body: (StudioServer) throws -> Void) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("transport-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/notebooks", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/public", withIntermediateDirectories: true)
        try JSONEncoder().encode(StudioFixture.notebook).write(to: URL(fileURLWithPath: base + "/notebooks/depth-threshold.json"))
        try Data("<p>page</p>".utf8).write(to: URL(fileURLWithPath: base + "/public/index.html"))
        var config = ServerConfiguration()
        config.port = 0
        config.dataDirectory = base + "/data"
        config.publicDirectory = base + "/public"
        config.notebooksDirectory = base + "/notebooks"
        let server = try StudioServer(configuration: config, backend: FakeBackend(), version: "test")
        server.start()
        defer { server.stop() }
        try body(server)
    }

    func reply(_ client: WebSocketClient) throws -> [String: JSONValue] {
        while true {
            if case .text(let text) = try client.receive(),
               case .object(let o) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), o["type"] == "reply" {
                return o
            }
        }
    }

    @Test func helloOpenPreviewOverARealSocket() throws {
        try withServer { server in
            #expect(server.port > 0)
            let client = try WebSocketClient(host: "127.0.0.1", port: server.port, path: "/ws", timeoutSeconds: 20)
            defer { client.shutdown() }
            try client.send(text: #"{"id":1,"type":"hello","protocol":1}"#)
            #expect(try reply(client)["ok"] == true)
            try client.send(text: #"{"id":2,"type":"openNotebook","name":"depth-threshold"}"#)
            #expect(try reply(client)["ok"] == true)
            try client.send(text: #"{"id":3,"type":"preview","cell":"mask","width":256,"seq":4}"#)
            #expect(try reply(client)["id"] == 3)
            guard case .binary(let bytes) = try client.receive() else {
                Issue.record("expected a binary frame")
                return
            }
            let (header, payload) = try BinaryFrame.decode(bytes)
            #expect(header.cell == "mask" && header.seq == 4 && header.width == 256)
            #expect(String(decoding: payload, as: UTF8.self) == "mask:60")
            // A large text message arrives whole (the server reads it in many chunks).
            let padding = String(repeating: "p", count: 300_000)
            try client.send(text: #"{"id":5,"type":"listNotebooks","pad":"\#(padding)"}"#)
            #expect(try reply(client)["ok"] == true)
        }
    }

    @Test func upgradesElsewhereAreRefusedAndHTTPStillWorks() throws {
        try withServer { server in
            #expect(throws: WebSocketClient.Failure.self) {
                _ = try WebSocketClient(host: "127.0.0.1", port: server.port, path: "/elsewhere", timeoutSeconds: 5)
            }
            let (status, body) = try SimpleHTTP.request(host: "127.0.0.1", port: server.port, method: "GET", path: "/healthz")
            #expect(status == 200 && body == Array("ok".utf8))
            let (pageStatus, page) = try SimpleHTTP.request(host: "127.0.0.1", port: server.port, method: "GET", path: "/n/anything")
            #expect(pageStatus == 200 && page == Array("<p>page</p>".utf8))
            let (statsStatus, stats) = try SimpleHTTP.request(host: "127.0.0.1", port: server.port, method: "GET", path: "/api/stats")
            #expect(statsStatus == 200)
            guard case .object(let o) = try JSONDecoder().decode(JSONValue.self, from: Data(stats)), case .number(let rss) = o["rssMb"] else {
                Issue.record("no rssMb")
                return
            }
            #expect(rss > 1)
        }
    }
}
