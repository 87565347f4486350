import Foundation

/// Where saved notebooks live, as `--store` names it: `sqlite:PATH` (one process, or several on one machine)
/// or `postgres://user[:password]@host[:port]/database` (several replicas sharing one database).
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresAddress)

    /// A PostgreSQL server and database; the password comes from the URL or, when it has none, `PGPASSWORD`.
    public struct PostgresAddress: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
        /// `?sslmode=require` asks for TLS; anything else (or nothing) uses TLS only if the server offers it.
        public var requireTLS: Bool
    }

    /// The default: `notebooks.sqlite` in the data directory.
    public static func defaultLocation(dataDirectory: String) -> StoreLocation {
        .sqlite(path: dataDirectory + "/notebooks.sqlite")
    }

    /// Parses `--store`; a mistake is reported with what the flag accepts.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let usage = "--store takes sqlite:PATH or postgres://user@host:port/database, not \"\(text)\""
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreError.database(usage) }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
              let url = URLComponents(string: text), let host = url.host, !host.isEmpty,
              let user = url.user, !user.isEmpty else {
            throw StoreError.database(usage)
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw StoreError.database("\(usage): name the database after the host") }
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else { throw StoreError.database("\(usage): the port must be 1...65535") }
        let password = url.password?.removingPercentEncoding ?? environment["PGPASSWORD"]
        let mode = url.queryItems?.first { $0.name == "sslmode" }?.value
        self = .postgres(PostgresAddress(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port,
                                         user: user.removingPercentEncoding ?? user, password: password,
                                         database: database, requireTLS: mode == "require" || mode == "verify-full"))
    }

    /// The location without its password, for logs and messages.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let a): return "postgres://\(a.user)@\(a.host):\(a.port)/\(a.database)"
        }
    }
}
