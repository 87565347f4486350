import Foundation

/// Keeps the data directory from growing for ever: exports expire by age and by total size (oldest first),
/// and uploads that nothing uses — no saved notebook, no live session — go after a while. Runs from the
/// server's periodic sweep; every deletion is of a file the server wrote itself, inside its own folders.
public struct DataJanitor: Sendable {
    public struct Policy: Sendable, Equatable {
        /// Exports older than this are removed (a person downloads an export right after making it).
        public var exportMaxAge: Duration = .seconds(24 * 3600)
        /// Exports beyond this many bytes in all are removed, oldest first.
        public var exportMaxBytes: Int = 2 << 30
        /// Uploads nothing refers to are removed once this old.
        public var uploadMaxAge: Duration = .seconds(7 * 24 * 3600)

        public init() {}
    }

    let exportsDirectory: String
    let uploadsDirectory: String
    let policy: Policy

    public init(exportsDirectory: String, uploadsDirectory: String, policy: Policy) {
        self.exportsDirectory = exportsDirectory
        self.uploadsDirectory = uploadsDirectory
        self.policy = policy
    }

    /// Removes expired exports; returns the names removed.
    @discardableResult
    public func sweepExports(now: Date = Date()) -> [String] {
        var files = Self.files(in: exportsDirectory).filter { !$0.name.hasPrefix(".") }
        var removed: [String] = []
        let oldest = now.addingTimeInterval(-Self.seconds(policy.exportMaxAge))
        for file in files where file.modified < oldest && remove(file, in: exportsDirectory) { removed.append(file.name) }
        files.removeAll { removed.contains($0.name) }
        var total = files.reduce(0) { $0 + $1.bytes }
        for file in files.sorted(by: { $0.modified < $1.modified }) where total > policy.exportMaxBytes {
            if remove(file, in: exportsDirectory) {
                total -= file.bytes
                removed.append(file.name)
            }
        }
        return removed
    }

    /// Removes uploads older than the policy allows that are not in `inUse` (upload ids); a pair record in use
    /// keeps its image and depth map. Returns the file names removed.
    @discardableResult
    public func sweepUploads(inUse: Set<String>, now: Date = Date()) -> [String] {
        let files = Self.files(in: uploadsDirectory)
        var keep = inUse
        for file in files where file.name.hasSuffix(".pair") {
            let id = String(file.name.dropLast(".pair".count))
            guard inUse.contains(id), let text = try? String(contentsOfFile: "\(uploadsDirectory)/\(file.name)", encoding: .utf8) else { continue }
            keep.formUnion(text.split(separator: "\n").map(String.init))
        }
        let oldest = now.addingTimeInterval(-Self.seconds(policy.uploadMaxAge))
        var removed: [String] = []
        for file in files where file.modified < oldest {
            let id = String(file.name.prefix { $0 != "." })
            guard UploadStore.isValidID(id), !keep.contains(id) else { continue }
            if remove(file, in: uploadsDirectory) { removed.append(file.name) }
        }
        return removed
    }

    private struct File {
        var name: String
        var bytes: Int
        var modified: Date
    }

    private static func files(in directory: String) -> [File] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { name in
            guard let attributes = try? fm.attributesOfItem(atPath: "\(directory)/\(name)"),
                  attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return File(name: name, bytes: (attributes[.size] as? NSNumber)?.intValue ?? 0,
                        modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }
    }

    private func remove(_ file: File, in directory: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: "\(directory)/\(file.name)")) != nil
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
