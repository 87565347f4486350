import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import Foundation

/// The notebooks shipped in `Notebooks/*.json`, read once at start, opened by file name.
public struct BundledNotebooks: Sendable {
    public typealias Entry = NotebookSummary

    /// Checked once, when read.
    private var byName: [String: CheckedNotebook]
    /// Files that could not be read, with why (logged at start; they never stop the server).
    public private(set) var problems: [String]

    public init(notebooks: [String: Notebook]) throws {
        byName = try notebooks.mapValues { try NotebookValidator().check($0) }
        problems = []
    }

    /// Reads every `.json` file in `directory`; a missing directory gives an empty list.
    public init(directory: String) {
        byName = [:]
        problems = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in names.sorted() where file.hasSuffix(".json") {
            let name = String(file.dropLast(5))
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
                byName[name] = try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: data))
            } catch {
                problems.append("\(file): \(RequestDecoder.describe(error))")
            }
        }
    }

    public func notebook(named name: String) -> CheckedNotebook? { byName[name] }

    public var entries: [Entry] {
        byName.keys.sorted().compactMap { name in
            byName[name].map { Entry(name: name, title: $0.notebook.title, description: $0.notebook.description) }
        }
    }
}
