import DepthbookDocument
import DepthbookEffects
import DepthbookTestSupport
import Foundation
import Logging
import Testing
@testable import DepthbookServer

/// What every notebook store promises, run against SQLite and against a real PostgreSQL: versions named by
/// content, saving twice is one version, forks keep their parent, a second handle on the same database (another
/// replica) sees every save, and the uploads saved notebooks name are listed.
@Suite(.timeLimit(.minutes(30)), .serialized)
struct NotebookStoreContractTests {
    /// Two handles on one fresh database, and what must happen after the test.
    final class Databases: Sendable {
        let first: any NotebookStore
        let second: any NotebookStore
        private let cleanup: @Sendable () -> Void
        init(_ first: any NotebookStore, _ second: any NotebookStore, cleanup: @escaping @Sendable () -> Void) {
            self.first = first
            self.second = second
            self.cleanup = cleanup
        }
        deinit { cleanup() }
    }

    static func databases(_ kind: String) throws -> Databases? {
        switch kind {
        case "sqlite":
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("nb-\(UUID().uuidString).sqlite").path
            return Databases(try SQLiteNotebookStore(path: path), try SQLiteNotebookStore(path: path)) {
                try? FileManager.default.removeItem(atPath: path)
            }
        default:
            let server: TestPostgres
            do {
                server = try TestPostgres()
            } catch {
                // Under CI the database is part of the test set-up, so its absence is a failure.
                if RunEnvironment.isCI { throw error }
                return nil
            }
            guard case .postgres(let address) = try StoreLocation(parsing: server.url) else { return nil }
            let logger = Logger(label: "test.store")
            return Databases(try PostgresNotebookStore(address, logger: logger), try PostgresNotebookStore(address, logger: logger)) {
                server.stop()
            }
        }
    }

    static let upload = String(repeating: "ab", count: 32)

    static func notebook(percentile: Double) -> Notebook {
        Notebook(name: "depth-threshold", title: "Depth threshold", photo: .upload(upload), cells: [
            Cell(id: "photo", kind: .photo),
            Cell(id: "mask", kind: .step, effect: "depthThreshold", inputs: ["disparity": "photo.disparity"],
                 params: ["percentile": .number(percentile)]),
        ])
    }

    @Test(arguments: ["sqlite", "postgres"])
    func theStoreKeepsItsPromises(kind: String) throws {
        guard let databases = try Self.databases(kind) else { return }
        let store = databases.first, replica = databases.second
        let a = try store.save(Self.notebook(percentile: 60), parent: nil)
        let again = try replica.save(Self.notebook(percentile: 60), parent: nil)
        #expect(again != a, "each save is a version of its own: an id cannot be found by saving the same content")
        #expect(try store.load(id: again)?.notebook == Self.notebook(percentile: 60))
        let b = try replica.save(Self.notebook(percentile: 35), parent: a)
        #expect(b != a)
        let forked = try #require(try store.load(id: b), "a save on one replica opens on the other")
        #expect(forked.notebook == Self.notebook(percentile: 35))
        #expect(forked.parent == a)
        #expect(forked.formatVersion == Notebook.currentVersion)
        #expect(try replica.load(id: a)?.notebook == Self.notebook(percentile: 60))
        #expect(try store.load(id: "0123456789abcdef0123") == nil)
        #expect(try store.referencedUploads() == [Self.upload])
    }

    /// PostgreSQL only: once the database stops answering, the store says so (`depthbook_store_up` reads it)
    /// and the requests after the first failure are refused at once with a message saying it is tried again
    /// every second, instead of each waiting out the timeout on its page's socket; a second later one request
    /// tries the database again (here it is still down: the database's own error). What was saved before is
    /// not lost.
    @Test func aStoppedDatabaseIsReportedAndTheNextRequestsFailAtOnce() throws {
        let server: TestPostgres
        do {
            server = try TestPostgres()
        } catch {
            if RunEnvironment.isCI { throw error }
            return
        }
        guard case .postgres(let address) = try StoreLocation(parsing: server.url) else { return }
        let store = try PostgresNotebookStore(address, logger: Logger(label: "test.store"))
        let saved = try store.save(Self.notebook(percentile: 50), parent: nil)
        #expect(store.isAvailable)
        server.stop()
        #expect(throws: StoreError.self) { try store.save(Self.notebook(percentile: 51), parent: nil) }
        #expect(!store.isAvailable)
        #expect { _ = try store.load(id: saved) } throws: { "\($0)".contains("tried again every second") }
        Thread.sleep(forTimeInterval: 1.2)
        #expect { _ = try store.load(id: saved) } throws: { !"\($0)".contains("tried again every second") }
        #expect(!store.isAvailable)
    }

    /// PostgreSQL only: a server that is not there is a clear error at start, not a hang.
    @Test func anUnreachableDatabaseIsAClearError() throws {
        guard case .postgres(let address) = try StoreLocation(parsing: "postgres://depthbook@127.0.0.1:1/depthbook") else {
            Issue.record("the URL did not parse")
            return
        }
        #expect {
            _ = try PostgresNotebookStore(address, logger: Logger(label: "test.store"))
        } throws: { error in
            "\(error)".contains("cannot use PostgreSQL at postgres://depthbook@127.0.0.1:1/depthbook")
        }
    }

    @Test func storeURLsParseOrSayWhatTheyTake() throws {
        #expect(try StoreLocation(parsing: "sqlite:/var/lib/depthbook/n.sqlite") == .sqlite(path: "/var/lib/depthbook/n.sqlite"))
        let parsed = try StoreLocation(parsing: "postgres://me:p%40ss@db.example.org:6543/studio?sslmode=require", environment: [:])
        #expect(parsed == .postgres(.init(host: "db.example.org", port: 6543, user: "me", password: "p@ss", database: "studio", requireTLS: true)))
        #expect(parsed.description == "postgres://me@db.example.org:6543/studio", "no password in logs")
        let fromEnvironment = try StoreLocation(parsing: "postgresql://me@db/studio", environment: ["PGPASSWORD": "secret"])
        #expect(fromEnvironment == .postgres(.init(host: "db", port: 5432, user: "me", password: "secret", database: "studio", requireTLS: false)))
        for bad in ["mysql://x@y/z", "postgres://db/studio", "postgres://me@db", "sqlite:", "notebooks.sqlite"] {
            #expect(throws: StoreError.self, "\(bad)") { try StoreLocation(parsing: bad) }
        }
    }
}
