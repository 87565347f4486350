import DepthbookEffects
import Foundation

/// A saved notebook version: immutable, named by its content.
public struct SavedNotebook: Sendable, Equatable {
    public var id: String
    public var notebook: Notebook
    /// The format version the document was saved with.
    public var formatVersion: Int
    /// The saved version this one was forked from, if any.
    public var parent: String?
}

/// Where saved notebooks live. One SQLite file today; the deploy work can put PostgreSQL behind the same
/// two calls, because versions are immutable and named by content (no updates, no races between replicas).
public protocol NotebookStore: Sendable {
    /// Stores `notebook` (a no-op when the same content is already stored) and returns its id.
    func save(_ notebook: Notebook, parent: String?) throws -> String
    /// The version saved under `id`, or nil.
    func load(id: String) throws -> SavedNotebook?
    /// Every upload id (64 hex digits) some saved notebook names: its photo, or an uploaded picture a
    /// parameter names. Uploads named here are never cleaned away.
    func referencedUploads() throws -> Set<String>
}

/// Upload ids in a text: every run of exactly 64 lowercase hex digits.
enum UploadReferences {
    static func scan(_ bytes: some Sequence<UInt8>) -> Set<String> {
        var found = Set<String>()
        var run: [UInt8] = []
        func close() {
            if run.count == 64 { found.insert(String(decoding: run, as: UTF8.self)) }
            run.removeAll(keepingCapacity: true)
        }
        for byte in bytes {
            if (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) { run.append(byte) } else { close() }
        }
        close()
        return found
    }
}

/// Why the store could not do what was asked.
public enum StoreError: Error, CustomStringConvertible {
    case unreadable(id: String, reason: String)
    case database(String)

    public var description: String {
        switch self {
        case .unreadable(let id, let reason): return "saved notebook \(id) cannot be read: \(reason)"
        case .database(let message): return "notebook database: \(message)"
        }
    }
}

/// The canonical bytes and content id of a notebook: sorted keys, so equal documents get equal ids.
public enum NotebookIdentity {
    /// Ids are the first 20 hex digits (80 bits) of the SHA-256 of the canonical JSON.
    public static let idLength = 20

    public static func canonicalJSON(_ notebook: Notebook) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(notebook))
    }

    public static func id(of canonical: [UInt8]) -> String {
        String(SHA256.hex(canonical).prefix(idLength))
    }

    /// Whether `id` has the shape of a saved id (so it is never confused with a bundled notebook's name).
    public static func isSavedID(_ id: String) -> Bool {
        id.count == idLength && id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }
}
