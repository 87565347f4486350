import DepthbookCodecs
import Foundation

/// Uploaded photos under `<data>/uploads`, each named by the SHA-256 of its bytes.
///
/// An image with a separate depth map is stored as both files plus a small pair record named by the hash
/// of the two ids, so every upload id names one immutable photo.
public struct UploadStore: Sendable {
    public let directory: String

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// What an upload id refers to.
    public enum Stored: Sendable, Equatable {
        case file(path: String)
        case pair(image: String, depth: String, polarity: DepthMapPolarity = .brighterIsNearer)
    }

    /// Upload ids are 64 lowercase hex digits; anything else never reaches the file system.
    public static func isValidID(_ id: String) -> Bool {
        id.count == 64 && id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Stores `bytes` (already validated) and returns its id. Storing the same bytes again is a no-op.
    public func store(_ bytes: [UInt8], fileExtension: String) throws -> String {
        let id = SHA256.hex(bytes)
        let path = "\(directory)/\(id).\(fileExtension)"
        if !FileManager.default.fileExists(atPath: path) {
            try AtomicFile.write(bytes, to: path)
        }
        return id
    }

    /// Records an image with its depth map (and which way the map's grey runs, as a third line `farther` or
    /// `detect`; none for brighter-nearer); returns the pair's id.
    public func storePair(image: String, depth: String, polarity: DepthMapPolarity = .brighterIsNearer) throws -> String {
        let mark = polarity == .brighterIsNearer ? "" : "\(polarity.rawValue)\n"
        let record = Array("\(image)\n\(depth)\n\(mark)".utf8)
        let id = SHA256.hex(record)
        let path = "\(directory)/\(id).pair"
        if !FileManager.default.fileExists(atPath: path) { try AtomicFile.write(record, to: path) }
        return id
    }

    /// Finds what `id` names, or nil.
    public func lookup(_ id: String) -> Stored? {
        guard Self.isValidID(id) else { return nil }
        let fm = FileManager.default
        if let record = fm.contents(atPath: "\(directory)/\(id).pair"), let text = String(data: record, encoding: .utf8) {
            let parts = text.split(separator: "\n").map(String.init)
            guard (2...3).contains(parts.count), parts.prefix(2).allSatisfy(Self.isValidID) else { return nil }
            if parts.count == 3 {
                guard let polarity = DepthMapPolarity(rawValue: parts[2]), polarity != .brighterIsNearer else { return nil }
                return .pair(image: parts[0], depth: parts[1], polarity: polarity)
            }
            return .pair(image: parts[0], depth: parts[1])
        }
        for ext in ["jpg", "heic", "png"] where fm.fileExists(atPath: "\(directory)/\(id).\(ext)") {
            return .file(path: "\(directory)/\(id).\(ext)")
        }
        return nil
    }

    /// The stored file of a single (non-pair) upload.
    public func path(of id: String) -> String? {
        if case .file(let path) = lookup(id) { return path }
        return nil
    }
}
