import DepthbookDocument
import DepthbookEngine
import Foundation
@testable import DepthbookEffects

/// Small helpers shared by the effect tests: one-cell notebooks, rendered floats, and the bundled notebooks.
enum EffectTestSupport {
    /// A sample rendered small, cached for the whole test run (the tracer is slow in debug builds).
    static func sample(_ id: String, width: Int = 128) throws -> Photo {
        try cache.photo(id: id, width: width)
    }

    /// A notebook with the photo cell and the given step cells.
    static func notebook(_ steps: [Cell]) -> Notebook {
        Notebook(name: "test", title: "test", photo: .sample("portrait"), cells: [Cell(id: "photo", kind: .photo)] + steps)
    }

    static func step(_ id: String, _ effect: String, _ inputs: [String: String], _ params: [String: ParameterValue] = [:]) -> Cell {
        Cell(id: id, kind: .step, effect: effect, inputs: inputs, params: params)
    }

    /// The float output of a cell at `width` (whole frame), straight from the engine.
    static func floats(_ photo: Photo, _ notebook: Notebook, _ cell: String, width: Int) throws -> PixelBuffer {
        let evaluator = Evaluator()
        let context = EffectContext(photo: photo, photoID: "test", evaluator: evaluator, statistics: StatisticsCache(), uploads: nil)
        var builder = RecipeBuilder(notebook: try NotebookValidator().check(notebook), context: context)
        let node = try builder.build(cell).node
        let height = Int((Double(width) * Double(photo.height) / Double(photo.width)).rounded())
        return try evaluator.render(node, RenderTarget(size: PixelSize(width: width, height: height)))
    }

    /// The package root (this file is Tests/DepthbookEffectsTests/EffectTestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func bundledNotebooks() throws -> [Notebook] {
        let folder = packageRoot.appendingPathComponent("Notebooks")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(contentsOf: folder.appendingPathComponent($0)))).notebook }
    }

    private static let cache = SampleCache()
}

/// Samples rendered once per test process.
final class SampleCache: @unchecked Sendable {
    private let lock = NSLock()
    private var photos: [String: Photo] = [:]

    func photo(id: String, width: Int) throws -> Photo {
        let key = "\(id)@\(width)"
        lock.lock()
        defer { lock.unlock() }
        if let p = photos[key] { return p }
        let p = try SampleLibrary.photo(id: id, width: width)
        photos[key] = p
        return p
    }
}
