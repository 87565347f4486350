import DepthbookDocument
import DepthbookEffects
import Foundation
import Testing
@testable import DepthbookServer

@Suite(.timeLimit(.minutes(30)))
struct StoreTests {
    static func notebook(percentile: Double = 60) -> Notebook {
        Notebook(name: "depth-threshold", title: "Depth threshold", photo: .sample("portrait"), cells: [
            Cell(id: "photo", kind: .photo),
            Cell(id: "mask", kind: .step, effect: "depthThreshold", inputs: ["disparity": "photo.disparity"],
                 params: ["percentile": .number(percentile)]),
        ])
    }

    @Test func savedVersionsHaveUnguessableIdsAndAreImmutable() throws {
        let store = try SQLiteNotebookStore()
        let a = try store.save(Self.notebook(), parent: nil)
        let again = try store.save(Self.notebook(), parent: nil)
        let b = try store.save(Self.notebook(percentile: 40), parent: a)
        #expect(a != again, "the same content saved twice is two versions: nobody finds an id by guessing the content")
        #expect(a != b)
        #expect(a.count == 32 && NotebookIdentity.isSavedID(a) && NotebookIdentity.isSavedID(b))
        #expect(try store.load(id: a)?.notebook == Self.notebook())
        #expect(try store.load(id: again)?.notebook == Self.notebook())
        let forked = try #require(try store.load(id: b))
        #expect(forked.notebook == Self.notebook(percentile: 40))
        #expect(forked.parent == a)
        #expect(forked.formatVersion == Notebook.currentVersion)
        #expect(try store.load(id: "0123456789abcdef0123") == nil)
    }

    @Test func theDatabaseFileOutlivesTheStore() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nb-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let id = try SQLiteNotebookStore(path: path).save(Self.notebook(), parent: nil)
        #expect(try SQLiteNotebookStore(path: path).load(id: id)?.notebook == Self.notebook())
    }

    @Test func bundledNotebooksSkipBrokenFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bundled-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try JSONEncoder().encode(Self.notebook()).write(to: URL(fileURLWithPath: dir + "/depth-threshold.json"))
        try Data("{ nope".utf8).write(to: URL(fileURLWithPath: dir + "/broken.json"))
        let bundled = BundledNotebooks(directory: dir)
        #expect(bundled.notebook(named: "depth-threshold")?.notebook == Self.notebook())
        #expect(bundled.notebook(named: "broken") == nil)
        #expect(bundled.problems.count == 1 && bundled.problems[0].hasPrefix("broken.json"))
        #expect(bundled.entries.map(\.name) == ["depth-threshold"])
    }

    @Test func uploadsAreStoredByHashAndAtomically() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try UploadStore(directory: dir)
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 1, 2, 3]
        let id = try store.store(bytes, fileExtension: "jpg")
        #expect(id == SHA256.hex(bytes))
        #expect(store.lookup(id) == .file(path: "\(dir)/\(id).jpg"))
        #expect(FileManager.default.contents(atPath: "\(dir)/\(id).jpg") == Data(bytes))
        let depth = try store.store([0x89, 0x50], fileExtension: "png")
        let pair = try store.storePair(image: id, depth: depth)
        #expect(store.lookup(pair) == .pair(image: id, depth: depth))
        #expect(store.lookup("../../etc/passwd") == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".partial") }
        #expect(leftovers.isEmpty)
    }
}

@Suite(.timeLimit(.minutes(30)))
struct RecipeXMPTests {
    @Test func theRecipeSurvivesEscapingBothWays() throws {
        let notebook = StoreTests.notebook(percentile: 42)
        let packet = try RecipeXMP.packet(notebook: notebook, cell: "mask")
        // The codecs rewrite attributes as elements; read back the element form with the same escaping.
        let json = String(decoding: try NotebookIdentity.canonicalJSON(notebook), as: UTF8.self)
        let element = "<x><depthbook:Notebook>\(RecipeXMP.escape(json))</depthbook:Notebook></x>"
        #expect(RecipeFromXMP.notebook(in: element) == notebook)
        #expect(packet.contains("depthbook:Notebook=\"{&quot;"))
        #expect(RecipeFromXMP.unescape("a &lt;b&gt; &amp; &#10;&#x41; &bogus; &") == "a <b> & \nA &bogus; &")
        #expect(RecipeFromXMP.notebook(in: "<x>no recipe</x>") == nil)
        #expect(RecipeFromXMP.notebook(in: "<depthbook:Notebook>{not json</depthbook:Notebook>") == nil)
    }
}
