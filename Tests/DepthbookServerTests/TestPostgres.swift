import Foundation

/// A throwaway PostgreSQL server from Debian's `postgresql` package, in a temporary directory, trusting local
/// connections: the tests' real database. Run as the `postgres` user when the tests run as root (PostgreSQL
/// refuses root).
final class TestPostgres: @unchecked Sendable {
    let port: Int
    let directory: String
    private let server: Process
    private let asUser: String?

    /// The URL `--store` takes, for database `depthbook` and user `depthbook`.
    var url: String { "postgres://depthbook@127.0.0.1:\(port)/depthbook" }

    /// The binaries' folder, or nil when the package is not installed.
    static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/postgres") }
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        guard let bin = Self.binaries else { throw Unavailable(description: "PostgreSQL is not installed (Debian's postgresql package)") }
        asUser = getuid() == 0 ? "postgres" : nil
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let asUser { try FileManager.default.setAttributes([.ownerAccountName: asUser], ofItemAtPath: directory) }
        port = try Self.freePort()
        try Self.run(asUser, "\(bin)/initdb", ["-D", "\(directory)/data", "-U", "depthbook", "--auth=trust", "-E", "UTF8"])
        server = Process()
        let (path, arguments) = Self.command(asUser, "\(bin)/postgres",
                                             ["-D", "\(directory)/data", "-p", "\(port)", "-k", directory, "-c", "listen_addresses=127.0.0.1"])
        server.executableURL = URL(fileURLWithPath: path)
        server.arguments = arguments
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let deadline = Date().addingTimeInterval(30)
        while (try? Self.run(nil, "\(bin)/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"])) == nil {
            guard Date() < deadline, server.isRunning else {
                stop()
                throw Unavailable(description: "PostgreSQL did not start on port \(port)")
            }
            usleep(100_000)
        }
        try Self.run(nil, "\(bin)/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "depthbook", "depthbook"])
    }

    deinit { stop() }

    func stop() {
        if server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func command(_ user: String?, _ tool: String, _ arguments: [String]) -> (String, [String]) {
        guard let user else { return (tool, arguments) }
        return ("/usr/sbin/runuser", ["-u", user, "--", tool] + arguments)
    }

    private static func run(_ user: String?, _ tool: String, _ arguments: [String]) throws {
        let process = Process()
        let (path, args) = command(user, tool, arguments)
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    /// A port nobody listens on now: bind port 0, read it, close.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Unavailable(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
