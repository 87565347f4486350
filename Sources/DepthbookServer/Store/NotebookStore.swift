import DepthbookDocument
import DepthbookEffects
import Foundation

/// A saved notebook version: immutable, named by an unguessable id.
public struct SavedNotebook: Sendable, Equatable {
    public var id: String
    public var notebook: Notebook
    /// The format version the document was saved with.
    public var formatVersion: Int
    /// The saved version this one was forked from, if any.
    public var parent: String?
}

/// Where saved notebooks live: a SQLite file, or PostgreSQL shared by replicas. Versions are immutable and
/// each has an id of its own (no updates, no races between replicas).
public protocol NotebookStore: Sendable {
    /// Stores `notebook` as a new version and returns its id (`NotebookIdentity.newID`).
    func save(_ notebook: Notebook, parent: String?) throws -> String
    /// The version saved under `id`, or nil.
    func load(id: String) throws -> SavedNotebook?
    /// Every upload id (64 hex digits) some saved notebook names: its photo, or an uploaded picture a
    /// parameter names. Uploads named here are never cleaned away.
    func referencedUploads() throws -> Set<String>
    /// Whether the store answered its last request (`depthbook_store_up` in /metrics).
    var isAvailable: Bool { get }
}

extension NotebookStore {
    /// A local file is there whenever the server is.
    public var isAvailable: Bool { true }
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

/// The canonical bytes of a notebook (sorted keys) and the ids its saved versions get.
public enum NotebookIdentity {
    /// A new version's id: 128 random bits (32 hex digits). Ids were once the SHA-256 of the content, which
    /// anyone who could guess the content (a bundled notebook at some percentile) could compute, and so open
    /// another person's saved recipe and its private photo; a session that saves an unchanged notebook again
    /// gets its id back instead (`Session.State.shared`).
    public static func newID() -> String { RandomID.make() }

    /// Versions saved before ids were random are named by 20 hex digits of their content hash; their links work.
    static let legacyIDLength = 20

    public static func canonicalJSON(_ notebook: Notebook) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(notebook))
    }

    /// Whether `id` has the shape of a saved id (so it is never confused with a bundled notebook's name).
    public static func isSavedID(_ id: String) -> Bool {
        (id.count == 32 || id.count == legacyIDLength) && id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }
}
