import Foundation
import Testing
@testable import DepthbookServer

/// Exports expire by age and total size; unused uploads go, used ones (and a used pair's parts) stay.
@Suite(.timeLimit(.minutes(30)))
struct DataJanitorTests {
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("janitor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func write(_ directory: String, _ name: String, bytes: Int, age: TimeInterval, now: Date) throws {
        let path = "\(directory)/\(name)"
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: path)
    }

    @Test func exportsExpireByAgeThenBySizeOldestFirst() throws {
        let exports = try folder(), now = Date()
        var policy = DataJanitor.Policy()
        policy.exportMaxAge = .seconds(3600)
        policy.exportMaxBytes = 250
        try write(exports, "old.jpg", bytes: 10, age: 7200, now: now)
        try write(exports, "a.jpg", bytes: 100, age: 300, now: now)
        try write(exports, "b.jpg", bytes: 100, age: 200, now: now)
        try write(exports, "c.jpg", bytes: 100, age: 100, now: now)
        let janitor = DataJanitor(exportsDirectory: exports, uploadsDirectory: try folder(), policy: policy)
        #expect(Set(janitor.sweepExports(now: now)) == ["old.jpg", "a.jpg"])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: exports)) == ["b.jpg", "c.jpg"])
    }

    @Test func unusedOldUploadsGoUsedOnesAndTheirPairsStay() throws {
        let uploads = try folder(), now = Date()
        let id = { (c: Character) in String(repeating: c, count: 64) }
        var policy = DataJanitor.Policy()
        policy.uploadMaxAge = .seconds(3600)
        try write(uploads, "\(id("a")).jpg", bytes: 5, age: 7200, now: now)   // unused, old: goes
        try write(uploads, "\(id("b")).jpg", bytes: 5, age: 60, now: now)     // unused, new: stays
        try write(uploads, "\(id("c")).heic", bytes: 5, age: 7200, now: now)  // used: stays
        try write(uploads, "\(id("d")).jpg", bytes: 5, age: 7200, now: now)   // a used pair's image
        try write(uploads, "\(id("e")).png", bytes: 5, age: 7200, now: now)   // ... and its depth map
        try "\(id("d"))\n\(id("e"))\n".write(toFile: "\(uploads)/\(id("f")).pair", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-7200)], ofItemAtPath: "\(uploads)/\(id("f")).pair")
        try write(uploads, "notes.txt", bytes: 5, age: 7200, now: now)        // not an upload: never touched
        let janitor = DataJanitor(exportsDirectory: try folder(), uploadsDirectory: uploads, policy: policy)
        #expect(janitor.sweepUploads(inUse: [id("c"), id("f")], now: now) == ["\(id("a")).jpg"])
        #expect(UploadReferences.scan(Array("{\"upload\":\"\(id("c"))\",\"x\":\"\(id("c"))0\"}".utf8)) == [id("c")])
    }
}
