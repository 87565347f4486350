import ArgumentParser
import DepthbookCodecs
import DepthbookServer
import Dispatch
import Foundation
import Logging

/// `depthbook serve`: the studio over HTTP and WebSocket. Flags win over DEPTHBOOK_* variables, which win
/// over the defaults.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the notebook studio (HTTP + WebSocket) on 127.0.0.1:8080 unless told otherwise.")

    @Option(help: "Address to listen on (env DEPTHBOOK_HOST; default 127.0.0.1). 0.0.0.0 serves every interface.")
    var host: String?

    @Option(help: "Port (env DEPTHBOOK_PORT; default 8080; 0 picks a free one).")
    var port: Int?

    @Option(help: "Data directory for uploads, saved notebooks and exports (env DEPTHBOOK_DATA; default ./data).")
    var data: String?

    @Option(help: "Where the generated sample photos are kept (env DEPTHBOOK_SAMPLES; default DATA/samples). Servers may share one: a sample is traced once, by the first that needs it.")
    var samples: String?

    @Option(help: "The static page directory (env DEPTHBOOK_PUBLIC; default: Public next to the executable, then /usr/share/depthbook/Public, then the checkout the executable was built in, then ./Public).")
    var `public`: String?

    @Option(help: "The bundled notebooks directory (env DEPTHBOOK_NOTEBOOKS; default: found as --public is).")
    var notebooks: String?

    @Option(help: "Where saved notebooks live: sqlite:PATH or postgres://user@host:port/database (env DEPTHBOOK_STORE; default sqlite:DATA/notebooks.sqlite). The password comes from the URL or PGPASSWORD.")
    var store: String?

    @Option(name: .customLong("allow-origin"),
            help: "Another origin allowed to open the WebSocket, e.g. https://studio.example.org (repeatable; env DEPTHBOOK_ALLOW_ORIGINS, comma-separated).")
    var allowOrigin: [String] = []

    @Option(name: .customLong("allow-host"),
            help: "Another host name the studio answers to, e.g. studio.example.org (repeatable; env DEPTHBOOK_ALLOW_HOSTS, comma-separated). localhost, 127.0.0.1, [::1] and --host are always admitted.")
    var allowHost: [String] = []

    @Option(help: "An access token that uploads, edits, saves and exports need; saved links still open read-only without it. `auto` makes one and prints the URL carrying it (env DEPTHBOOK_TOKEN).")
    var token: String?

    @Option(help: "Largest upload in MiB (env DEPTHBOOK_UPLOAD_LIMIT_MB; default 64).")
    var uploadLimitMb: Int?

    @Option(help: "Renders running at once over all sessions (env DEPTHBOOK_RENDER_WORKERS; default 2).")
    var renderWorkers: Int?

    @Option(help: "Seconds a disconnected session waits for its page to come back (env DEPTHBOOK_SESSION_GRACE; default 120).")
    var sessionGrace: Int?

    @Option(name: .customLong("memory-budget-mb"),
            help: "Memory the studio plans to use in MiB: decoded photos, render caches, kept frames, outboxes and exports share it (env DEPTHBOOK_MEMORY_BUDGET_MB; default 1024).")
    var memoryBudgetMb: Int?

    @Option(name: .customLong("export-max-age-hours"), help: "Exports are removed this many hours after they were made (env DEPTHBOOK_EXPORT_MAX_AGE_HOURS; default 24).")
    var exportMaxAgeHours: Int?

    @Option(name: .customLong("export-max-mb"), help: "Exports beyond this many MiB in all are removed, oldest first (env DEPTHBOOK_EXPORT_MAX_MB; default 2048).")
    var exportMaxMb: Int?

    @Option(name: .customLong("upload-max-age-days"), help: "Uploads no saved notebook or live session uses are removed after this many days (env DEPTHBOOK_UPLOAD_MAX_AGE_DAYS; default 7).")
    var uploadMaxAgeDays: Int?

    func validate() throws {
        for (name, value) in [("--export-max-age-hours", exportMaxAgeHours), ("--export-max-mb", exportMaxMb),
                              ("--upload-max-age-days", uploadMaxAgeDays)] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
        if let memoryBudgetMb, memoryBudgetMb < 256 { throw ValidationError("--memory-budget-mb must be at least 256") }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0...65535, not \(port)") }
        if let uploadLimitMb, uploadLimitMb < 1 { throw ValidationError("--upload-limit-mb must be at least 1") }
        if let renderWorkers, !(1...64).contains(renderWorkers) { throw ValidationError("--render-workers must be 1...64") }
        if let sessionGrace, sessionGrace < 0 { throw ValidationError("--session-grace must be 0 or more seconds") }
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        func number(_ key: String) throws -> Int? {
            guard let text = env[key] else { return nil }
            guard let value = Int(text) else { throw ValidationError("\(key)=\(text) is not a whole number") }
            return value
        }
        var config = ServerConfiguration()
        config.host = host ?? env["DEPTHBOOK_HOST"] ?? config.host
        config.port = try port ?? number("DEPTHBOOK_PORT") ?? config.port
        guard (0...65535).contains(config.port) else { throw ValidationError("the port must be 0...65535, not \(config.port)") }
        config.dataDirectory = data ?? env["DEPTHBOOK_DATA"] ?? config.dataDirectory
        config.publicDirectory = self.public ?? env["DEPTHBOOK_PUBLIC"]
            ?? AssetLocator.find("Public", marker: "index.html") ?? config.publicDirectory
        config.notebooksDirectory = notebooks ?? env["DEPTHBOOK_NOTEBOOKS"]
            ?? AssetLocator.find("Notebooks", marker: "depth-threshold.json") ?? config.notebooksDirectory
        if let store = store ?? env["DEPTHBOOK_STORE"], !store.isEmpty {
            do {
                config.store = try StoreLocation(parsing: store)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        config.allowedOrigins = allowOrigin.isEmpty
            ? (env["DEPTHBOOK_ALLOW_ORIGINS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            : allowOrigin
        config.allowedHosts = allowHost.isEmpty
            ? (env["DEPTHBOOK_ALLOW_HOSTS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            : allowHost
        config.token = try AccessToken.resolve(token ?? env["DEPTHBOOK_TOKEN"])
        if let mb = try uploadLimitMb ?? number("DEPTHBOOK_UPLOAD_LIMIT_MB") { config.uploadLimitBytes = mb << 20 }
        if let workers = try renderWorkers ?? number("DEPTHBOOK_RENDER_WORKERS") { config.renderWorkers = workers }
        if let grace = try sessionGrace ?? number("DEPTHBOOK_SESSION_GRACE") { config.sessionGrace = .seconds(grace) }
        if let budget = try memoryBudgetMb ?? number("DEPTHBOOK_MEMORY_BUDGET_MB") {
            guard budget >= 256 else { throw ValidationError("the memory budget must be at least 256 MiB, not \(budget)") }
            config.memoryBudget = MemoryBudget(megabytes: budget)
        }
        config.releasesMemoryWhenIdle = try AllocatorTuning.policy(from: env).releasesWhenIdle

        if let hours = try exportMaxAgeHours ?? number("DEPTHBOOK_EXPORT_MAX_AGE_HOURS") { config.retention.exportMaxAge = .seconds(max(1, hours) * 3600) }
        if let mb = try exportMaxMb ?? number("DEPTHBOOK_EXPORT_MAX_MB") { config.retention.exportMaxBytes = max(1, mb) << 20 }
        if let days = try uploadMaxAgeDays ?? number("DEPTHBOOK_UPLOAD_MAX_AGE_DAYS") { config.retention.uploadMaxAge = .seconds(max(1, days) * 86400) }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: env["DEPTHBOOK_LOG_LEVEL"] ?? "") ?? .info
            return handler
        }
        let logger = Logger(label: "depthbook.serve")
        var personMatter: PersonMatter?
        switch PersonMatteSetup.open(env) {
        case .success(let matter): personMatter = matter
        case .failure(let problem):
            // One line, and the server goes on: every effect still takes its subject from depth.
            logger.warning("no learned person matte, subjects come from depth alone: \(problem)")
        }
        let backend = try EffectsBackend(dataDirectory: config.dataDirectory, samplesDirectory: samples ?? env["DEPTHBOOK_SAMPLES"],
                                         sharedCacheBytes: config.memoryBudget.cacheBytes, personMatter: personMatter,
                                         personMatteRoomBytes: config.memoryBudget.personMatteRoomBytes(renderWorkers: config.renderWorkers))
        let server: StudioServer
        do {
            server = try StudioServer(configuration: config, backend: backend, version: DepthbookVersion.string)
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
        for problem in server.notebookProblems {
            logger.warning("skipped a bundled notebook", metadata: ["problem": "\(problem)"])
        }
        server.start()
        logger.info("serving", metadata: [
            "host": "\(config.host)", "port": "\(server.port)", "store": "\(config.store ?? .defaultLocation(dataDirectory: config.dataDirectory))",
            "public": "\(config.publicDirectory)", "notebooks": "\(config.notebooksDirectory)", "data": "\(config.dataDirectory)",
        ])
        // The token appears in this one line, the link a person opens; it is never logged anywhere else.
        print("Depthbook studio at \(server.url)" + (config.token.map { "?token=\($0)" } ?? ""))
        fflush(nil)
        // The bundled samples are written into the data directory once, off the serving path.
        DispatchQueue.global(qos: .utility).async { @Sendable in
            do {
                try backend.generateMissingSamples()
            } catch {
                logger.error("could not write the bundled samples", metadata: ["error": "\(error)"])
            }
        }

        // SIGINT/SIGTERM end the process cleanly: the loop stops, sessions close, the socket is released.
        let done = DispatchSemaphore(value: 0)
        signal(SIGPIPE, SIG_IGN)  // a page that vanished mid-write is an error on that socket, never the process's end
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { signalNumber in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in done.signal() }
            source.resume()
            return source
        }
        done.wait()
        logger.info("stopping")
        sources.forEach { $0.cancel() }
        server.stop()
    }
}

/// `--token`: a value given by the operator (checked to be safe in a cookie and a URL), or `auto` for a fresh
/// random one.
enum AccessToken {
    static func resolve(_ given: String?) throws -> String? {
        guard let given, !given.isEmpty else { return nil }
        if given == "auto" { return generate() }
        let allowed = given.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-._~".unicodeScalars.contains($0)
        }
        guard allowed, (16...256).contains(given.count) else {
            throw ValidationError("the access token must be 16 to 256 characters of A-Z, a-z, 0-9, '-', '.', '_', '~' (or `auto`)")
        }
        return given
    }

    /// 128 bits from the system's generator, as hex.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
