import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation
import Logging
import PostgresNIO

/// Saved notebooks in PostgreSQL, so several replicas share them without a database file on a network volume.
///
/// Rows are immutable versions named by content hash, as in the SQLite store: a save is an insert that does
/// nothing when the id exists, so replicas never race. The schema is created or brought up to date at start,
/// under an advisory lock so replicas starting together do not migrate twice.
public final class PostgresNotebookStore: NotebookStore {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let address: StoreLocation.PostgresAddress
    private let logger: Logger
    /// Connecting and migrating at start may take this long.
    static let startTimeout: Duration = .seconds(15)
    /// A query that takes longer than this fails the request rather than holding its connection's queue (a
    /// save or a saved link's open is one small row: it answers in milliseconds when the database is there).
    static let timeout: Duration = .seconds(3)
    /// After a failure, requests fail at once instead of each waiting out the timeout (with PostgreSQL stopped,
    /// every save and saved-link open once blocked its page's socket for 15 s); one request at a time may try
    /// the database again once this long has passed since the last try, so the first after PostgreSQL returns
    /// brings the store back (a fixed 10 s of refusals once kept saved links closed after it was back).
    static let probeInterval: Duration = .seconds(1)
    private struct Health {
        var down = false
        /// A request is trying the database while it is taken to be down; the others fail at once.
        var probing = false
        var lastTry = ContinuousClock.now
    }
    private let health = Locked(Health())

    public var isAvailable: Bool { health.withLock { !$0.down } }

    public init(_ address: StoreLocation.PostgresAddress, logger: Logger) throws {
        var configuration = PostgresClient.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: address.requireTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 8
        self.address = address
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
        var direct = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: address.requireTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable)
        direct.options.connectTimeout = .seconds(5)
        do {
            // One direct connection first: a wrong address or password fails here with the server's reason,
            // where the pool would keep retrying.
            try BlockingAsync.run(timeout: Self.startTimeout) { [direct, logger] in
                let connection = try await PostgresConnection.connect(configuration: direct, id: 0, logger: logger)
                do {
                    try await Self.migrate(connection, logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            }
        } catch {
            runner.cancel()
            throw StoreError.database("cannot use PostgreSQL at \(StoreLocation.postgres(address)): \(Self.reason(error))")
        }
    }

    deinit { runner.cancel() }

    /// Schema versions, applied in order once each; the table `depthbook_schema` records what was applied.
    static let migrations: [(version: Int, sql: String)] = [
        (1, """
            CREATE TABLE notebook_version (
                id TEXT PRIMARY KEY,
                format_version INTEGER NOT NULL,
                document BYTEA NOT NULL,
                parent TEXT,
                created_at DOUBLE PRECISION NOT NULL)
            """),
    ]

    /// An arbitrary constant naming Depthbook's migration lock among the database's advisory locks.
    static let migrationLock: Int64 = 0x4465_7074_6862_6B

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
            do {
                try await connection.query("CREATE TABLE IF NOT EXISTS depthbook_schema (version INTEGER PRIMARY KEY)", logger: logger)
                var applied = Set<Int>()
                for try await version in try await connection.query("SELECT version FROM depthbook_schema", logger: logger).decode(Int.self) {
                    applied.insert(version)
                }
                for migration in migrations where !applied.contains(migration.version) {
                    try await connection.query(PostgresQuery(unsafeSQL: "BEGIN"), logger: logger)
                    do {
                        try await connection.query(PostgresQuery(unsafeSQL: migration.sql), logger: logger)
                        try await connection.query("INSERT INTO depthbook_schema (version) VALUES (\(migration.version))", logger: logger)
                        try await connection.query(PostgresQuery(unsafeSQL: "COMMIT"), logger: logger)
                    } catch {
                        _ = try? await connection.query(PostgresQuery(unsafeSQL: "ROLLBACK"), logger: logger)
                        throw error
                    }
                    logger.info("notebook store schema migrated", metadata: ["version": "\(migration.version)"])
                }
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
        }
    }

    public func save(_ notebook: Notebook, parent: String?) throws -> String {
        let canonical = try NotebookIdentity.canonicalJSON(notebook)
        let id = NotebookIdentity.newID()
        let version = notebook.version, document = Data(canonical), created = Date().timeIntervalSince1970
        try perform("save") { [client, logger] in
            try await client.query("""
                INSERT INTO notebook_version (id, format_version, document, parent, created_at)
                VALUES (\(id), \(version), \(document), \(parent), \(created))
                ON CONFLICT (id) DO NOTHING
                """, logger: logger)
        }
        return id
    }

    public func load(id: String) throws -> SavedNotebook? {
        let row = try perform("read") { [client, logger] () -> (Int, Data, String?)? in
            let rows = try await client.query(
                "SELECT format_version, document, parent FROM notebook_version WHERE id = \(id)", logger: logger)
            for try await row in rows.decode((Int, Data, String?).self) { return row }
            return nil
        }
        guard let (formatVersion, document, parent) = row else { return nil }
        let notebook: Notebook
        do {
            // Decoding migrates older format versions to the current one.
            notebook = try JSONDecoder().decode(Notebook.self, from: document)
        } catch {
            throw StoreError.unreadable(id: id, reason: "\(error)")
        }
        return SavedNotebook(id: id, notebook: notebook, formatVersion: formatVersion, parent: parent)
    }

    public func referencedUploads() throws -> Set<String> {
        try perform("list uploads in use") { [client, logger] in
            var found = Set<String>()
            for try await document in try await client.query("SELECT document FROM notebook_version", logger: logger).decode(Data.self) {
                found.formUnion(UploadReferences.scan(document))
            }
            return found
        }
    }

    private func perform<T: Sendable>(_ what: String, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let admitted = health.withLock { health in
            guard health.down else { return true }
            guard !health.probing, ContinuousClock.now - health.lastTry >= Self.probeInterval else { return false }
            health.probing = true
            health.lastTry = .now
            return true
        }
        guard admitted else {
            throw StoreError.database("cannot \(what): the notebook store did not answer just now; it is tried again every second")
        }
        do {
            let result = try BlockingAsync.run(timeout: Self.timeout, work)
            health.withLock { $0 = Health() }
            return result
        } catch {
            health.withLock { health in
                health.down = true
                health.probing = false
                health.lastTry = .now
            }
            logger.error("notebook store failed", metadata: ["operation": "\(what)", "error": "\(Self.reason(error))"])
            throw StoreError.database("cannot \(what): \(Self.reason(error))")
        }
    }

    /// PostgresNIO's errors print little by default: the server's message when there is one.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
