import DepthbookMessages
import Foundation

/// Where finished exports go: one file each in the exports folder, named so a person can tell them apart
/// (notebook, cell) and that nobody can guess (128 random bits) and safe to serve from `/exports/`, written whole or not at all.
struct ExportWriter: Sendable {
    let directory: String

    func write(_ file: ExportedFile, notebook: String, cell: String) throws -> ExportResult {
        // The random part is the secret that keeps another person's export out of reach (a digest of the bytes
        // could be recomputed by anyone who can make the same export).
        let name = "\(Self.slug(notebook))-\(Self.slug(cell))-\(RandomID.make()).\(file.fileExtension)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try AtomicFile.write(file.bytes, to: "\(directory)/\(name)")
        return ExportResult(url: "/exports/\(name)", bytes: file.bytes.count)
    }

    /// Letters, digits and dashes only, at most 40 of them.
    static func slug(_ text: String) -> String {
        let kept = text.unicodeScalars.map { scalar -> Character in
            let ok = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
            return ok ? Character(scalar) : "-"
        }
        let slug = String(kept.prefix(40))
        return slug.isEmpty ? "export" : slug
    }

    /// A name `/exports/` may serve: the writer's names and nothing that could climb out of the folder.
    static func isValidFileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 128 && !name.hasPrefix(".") && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_"
        }
    }
}
