/// Who may talk to the studio, decided from the request's headers alone (no sockets, so it is tested directly).
///
/// Two questions. *Which names may this server be reached by?* A `Host` outside the allowlist is refused, so a
/// page whose own name was re-pointed at 127.0.0.1 (DNS rebinding) cannot drive a local studio: its requests
/// carry its own name. *Does the client hold the access token?* Only asked when the operator set one; without
/// it a client may look at saved notebooks (read-only) but not upload, edit, save or export.
public struct AccessPolicy: Sendable {
    /// Host names (lower-case, no port, no trailing dot; IPv6 without brackets) the server answers to.
    public let allowedHosts: Set<String>
    /// Origins besides the served host that may open the WebSocket (`--allow-origin`).
    public let allowedOrigins: [String]
    private let token: [UInt8]?

    /// The cookie the page's token travels in once a URL carrying `?token=` has been opened.
    public static let cookieName = "depthbook_token"

    /// The names every studio answers to: a person's own machine.
    public static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// `listenHost` is `--host`; its name or address is admitted too (unless it is the wildcard address).
    public init(listenHost: String, extraHosts: [String] = [], allowedOrigins: [String] = [], token: String? = nil) {
        var hosts = Self.loopbackHosts
        for name in [listenHost] + extraHosts {
            let normal = Self.normalise(name)
            if !normal.isEmpty, normal != "0.0.0.0", normal != "::" { hosts.insert(normal) }
        }
        allowedHosts = hosts
        self.allowedOrigins = allowedOrigins
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    public var requiresToken: Bool { token != nil }

    // MARK: Host

    /// Whether a request with this `Host` header may be answered. HTTP/1.1 requires the header; a request
    /// without one is refused too.
    public func admits(host header: String?) -> Bool {
        guard let header, let name = Self.hostName(fromHeader: header) else { return false }
        return allowedHosts.contains(name)
    }

    /// What a refused client is told: which name was refused and the flag that admits it.
    public func hostRefusal(_ header: String?) -> String {
        let shown = header.flatMap { Self.hostName(fromHeader: $0) } ?? "(none)"
        return "this studio does not answer to the host name \"\(shown)\"; whoever runs it can admit that name with "
            + "`depthbook serve --allow-host \(shown)` (or DEPTHBOOK_ALLOW_HOSTS)"
    }

    /// The name in a `Host` header: `name`, `name:port`, `[v6]` or `[v6]:port`, lower-cased, without a trailing
    /// dot. Nil for anything malformed.
    static func hostName(fromHeader header: String) -> String? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 255 else { return nil }
        var name: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst())) else { return nil }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            name = parts[0]
            if parts.count == 2, !isPort(parts[1]) { return nil }
        }
        let normal = normalise(String(name))
        // Only what a DNS name or an IP literal can hold: nothing else is echoed back in a refusal.
        let legal = normal.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_" || $0 == ":"
        }
        return normal.isEmpty || !legal ? nil : normal
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber)
    }

    static func normalise(_ name: String) -> String {
        var lowered = name.lowercased()
        if lowered.hasPrefix("["), lowered.hasSuffix("]") { lowered = String(lowered.dropFirst().dropLast()) }
        while lowered.hasSuffix(".") { lowered.removeLast() }
        return lowered
    }

    // MARK: Origin

    /// Which pages may open the socket: one served from an allowed host whose Origin names the same host
    /// and port as the request, or an origin the operator listed. Clients that send no Origin (tools, the load
    /// test) are not browsers and cannot be tricked into connecting.
    public func admits(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        if allowedOrigins.contains(origin) { return true }
        guard let host, admits(host: host), let schemeEnd = origin.range(of: "://") else { return false }
        return origin[schemeEnd.upperBound...].lowercased() == host.lowercased()
    }

    // MARK: Token

    /// Whether the client presented the token: as `Authorization: Bearer <token>`, as the studio's cookie, or
    /// as `token` in the query. Always true when no token is configured.
    public func grants(authorization: String?, cookie: String?, queryToken: String?) -> Bool {
        guard let token else { return true }
        var presented: [String] = []
        if let authorization, authorization.lowercased().hasPrefix("bearer ") {
            presented.append(authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces))
        }
        if let cookie, let value = Self.cookieValue(named: Self.cookieName, in: cookie) { presented.append(value) }
        if let queryToken { presented.append(queryToken) }
        // Every candidate is compared in full, so the time taken says nothing about how much of one matched.
        var matched = false
        for candidate in presented where Self.constantTimeEqual(Array(candidate.utf8), token) { matched = true }
        return matched
    }

    /// The value of cookie `name` in a `Cookie` header (`a=1; b=2`).
    static func cookieValue(named name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Equal bytes, compared in time that depends only on the lengths.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// The `Set-Cookie` value that keeps the token for the page's later requests: never readable by scripts,
    /// never sent by other sites' pages.
    public static func cookie(for token: String) -> String {
        "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }
}
