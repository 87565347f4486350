/// The photo a notebook opens on.
public enum PhotoReference: Sendable, Equatable, Hashable, Codable {
    case sample(String)
    case upload(String)
    case path(String)

    enum CodingKeys: String, CodingKey { case sample, upload, path }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let s = try c.decodeIfPresent(String.self, forKey: .sample) { self = .sample(s) }
        else if let u = try c.decodeIfPresent(String.self, forKey: .upload) { self = .upload(u) }
        else if let p = try c.decodeIfPresent(String.self, forKey: .path) { self = .path(p) }
        else { throw NotebookError.invalid("photo must be {\"sample\": id}, {\"upload\": sha256} or {\"path\": file}") }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .sample(let s): try c.encode(s, forKey: .sample)
        case .upload(let u): try c.encode(u, forKey: .upload)
        case .path(let p): try c.encode(p, forKey: .path)
        }
    }
}
