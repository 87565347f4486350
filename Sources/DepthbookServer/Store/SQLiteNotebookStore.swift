import DepthbookDocument
import DepthbookEffects
import Foundation
import GRDB

/// Saved notebooks in one SQLite file under the data directory, through GRDB.
///
/// Each row is an immutable version: `id` is the content hash of the canonical JSON, so saving the same
/// document twice is one row and nobody can overwrite another's notebook.
public final class SQLiteNotebookStore: NotebookStore {
    private let database: DatabaseQueue

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        do {
            database = try DatabaseQueue(path: path)
            try Self.migrator.migrate(database)
        } catch {
            throw StoreError.database("cannot open \(path): \(error)")
        }
    }

    /// An in-memory store, for tests.
    public init() throws {
        database = try DatabaseQueue()
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: notebook versions") { db in
            try db.create(table: "notebookVersion") { t in
                t.primaryKey("id", .text)
                t.column("formatVersion", .integer).notNull()
                t.column("document", .blob).notNull()
                t.column("parent", .text)
                t.column("createdAt", .double).notNull()
            }
        }
        return migrator
    }

    public func save(_ notebook: Notebook, parent: String?) throws -> String {
        let canonical = try NotebookIdentity.canonicalJSON(notebook)
        let id = NotebookIdentity.newID()
        do {
            try database.write { db in
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO notebookVersion (id, formatVersion, document, parent, createdAt)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [id, notebook.version, Data(canonical), parent, Date().timeIntervalSince1970])
            }
        } catch {
            throw StoreError.database("cannot save: \(error)")
        }
        return id
    }

    public func referencedUploads() throws -> Set<String> {
        do {
            return try database.read { db in
                var found = Set<String>()
                let rows = try Row.fetchCursor(db, sql: "SELECT document FROM notebookVersion")
                while let row = try rows.next() {
                    let document: Data = row["document"]
                    found.formUnion(UploadReferences.scan(document))
                }
                return found
            }
        } catch {
            throw StoreError.database("cannot list uploads in use: \(error)")
        }
    }

    public func load(id: String) throws -> SavedNotebook? {
        let row: Row?
        do {
            row = try database.read { db in
                try Row.fetchOne(db, sql: "SELECT formatVersion, document, parent FROM notebookVersion WHERE id = ?",
                                 arguments: [id])
            }
        } catch {
            throw StoreError.database("cannot read: \(error)")
        }
        guard let row else { return nil }
        let document: Data = row["document"]
        let notebook: Notebook
        do {
            // Decoding migrates older format versions to the current one.
            notebook = try JSONDecoder().decode(Notebook.self, from: document)
        } catch {
            throw StoreError.unreadable(id: id, reason: "\(error)")
        }
        return SavedNotebook(id: id, notebook: notebook, formatVersion: row["formatVersion"], parent: row["parent"])
    }
}
