/// Where the load test connects: host, port, and whether to speak TLS (`wss://`, `https://`).
public struct Endpoint: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// PEM file of the certificate authority to trust (a self-signed certificate works too); nil uses the
    /// system's store.
    public var caFile: String?
    /// The studio's access token, sent as `Authorization: Bearer` on every request; nil sends none.
    public var token: String?

    public init(host: String, port: Int, tls: Bool = false, caFile: String? = nil, token: String? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
        self.token = token
    }
}
