import ArgumentParser
import DepthbookLoadtest
import Foundation
import DepthbookProtocol

/// `depthbook loadtest`: drive real WebSocket sessions against a running `depthbook serve` and print one
/// JSON line of latency figures.
struct LoadtestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Drag a slider in N real sessions against a running server and print latency as one JSON line.")

    @Option(help: "The server's WebSocket URL: ws://HOST:PORT or wss://HOST:PORT (through a TLS proxy); path /ws unless given.")
    var url: String

    @Option(help: "Origin header to send, as a browser on the studio page would (e.g. https://studio.example.org).")
    var origin: String?

    @Option(help: "The studio's access token (sent as Authorization: Bearer; env DEPTHBOOK_TOKEN).")
    var token: String?

    @Option(name: .customLong("ca-file"), help: "PEM certificate (authority) to trust for wss:// (default: the system's).")
    var caFile: String?

    @Option(help: "Concurrent sessions.")
    var sessions: Int = 1

    @Option(help: "Slider changes per session.")
    var changes: Int = 100

    @Option(help: "Changes per second in each session.")
    var rate: Double = 60

    @Option(help: "The bundled notebook each session opens.")
    var notebook: String = "depth-threshold"

    @Option(help: "A photo file uploaded once and opened in every session (default: the notebook's own photo).")
    var photo: String?

    @Option(help: "A folder of photos (HEIC, JPEG, PNG), each uploaded once; session i opens the i-th, round robin (a workshop where everyone brought a photo).")
    var photos: String?

    @Option(help: "Pages that follow session 0 view-only, as an audience's phones follow a presenter (0...500).")
    var watchers: Int = 0

    @Option(help: "Preview width in pixels.")
    var width: Int = 1280

    @Flag(name: .customLong("scrolled-to-slider"),
          help: "Act as a page scrolled to the slider's cell with the result in view: the cells between them are out of view and wait while the slider moves.")
    var scrolledToSlider = false

    @Option(help: "Seconds a session waits for any one reply or frame before it counts an error (a sanitized or very busy server needs more).")
    var timeout: Int = 60

    @Flag(help: "Print the JSON line only (the default output is the same line).")
    var json = false

    func validate() throws {
        guard sessions >= 1, sessions <= 1000 else { throw ValidationError("--sessions must be 1...1000") }
        guard (0...500).contains(watchers) else { throw ValidationError("--watchers must be 0...500") }
        guard changes >= 1 else { throw ValidationError("--changes must be at least 1") }
        guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be in (0, 1000] changes per second") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be 1...3600 seconds") }
        let widths = Limits.studio.previewWidth
        guard widths.contains(width) else { throw ValidationError("--width must be \(widths), as the studio's previews") }
        _ = try endpoint()
    }

    /// The photo files directly in `directory`, by name.
    static func photoFiles(in directory: String) throws -> [String] {
        let kinds: Set<String> = ["heic", "heif", "jpg", "jpeg", "png"]
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { kinds.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard !names.isEmpty else { throw ValidationError("--photos \(directory) holds no HEIC, JPEG or PNG file") }
        return names.map { directory + "/" + $0 }
    }

    /// Endpoint and path from `ws[s]://host:port[/path]`.
    func endpoint() throws -> (Endpoint, String) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, scheme == "ws" || scheme == "wss", let host = parsed.host else {
            throw ValidationError("--url must look like ws://127.0.0.1:8080 or wss://studio.example.org")
        }
        let tls = scheme == "wss"
        let path = parsed.path.isEmpty || parsed.path == "/" ? "/ws" : parsed.path
        let token = self.token ?? ProcessInfo.processInfo.environment["DEPTHBOOK_TOKEN"]
        return (Endpoint(host: host, port: parsed.port ?? (tls ? 443 : 80), tls: tls, caFile: caFile,
                         token: token?.isEmpty == false ? token : nil), path)
    }

    func run() throws {
        // OpenSSL writes with plain write(): a peer that already closed must give an error, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let (endpoint, path) = try endpoint()
        var options = Loadtest.Options(endpoint: endpoint, sessions: sessions, changes: changes, rate: rate)
        options.path = path
        options.origin = origin
        options.notebook = notebook
        options.photo = photo
        options.photos = try photos.map(Self.photoFiles) ?? []
        options.watchers = watchers
        options.width = width
        options.scrolledToSlider = scrolledToSlider
        options.timeoutSeconds = timeout
        print(try Loadtest(options: options).run().jsonLine)
    }
}
