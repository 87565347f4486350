import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// `Notebooks/formulas.json` rebuilds three effects of the talks as formulas: each formula's render equals the
/// built-in effect beside it within one level of 255, at the page's widths and in full-resolution crops, at the
/// defaults and with the sliders moved, on the bundled sample and on every shared photo that has the planes.
@Suite(.timeLimit(.minutes(30)))
struct FormulaEquivalenceTests {
    /// (formula cell, built-in cell, the planes both need).
    static let pairs: [(formula: String, builtIn: String, needs: Set<String>)] = [
        ("darkenFormula", "darkenBuiltIn", ["photo.disparity"]),
        ("noirFormula", "noirBuiltIn", ["photo.disparity"]),
        ("makeupFormula", "makeupBuiltIn", ["photo.skin"]),
    ]

    static func notebook() throws -> Notebook {
        try #require(try EffectTestSupport.bundledNotebooks().first { $0.name == "formulas" })
    }

    /// The largest difference between two renders, in levels of 255.
    static func worst(_ renderer: NotebookRenderer, _ notebook: Notebook, _ a: String, _ b: String,
                      _ request: CellRenderRequest) throws -> Int {
        let x = try renderer.render(notebook: notebook, cell: a, request: request).pixels
        let y = try renderer.render(notebook: notebook, cell: b, request: request).pixels
        #expect(x.width == y.width && x.height == y.height && x.channels == y.channels, "\(a) and \(b) differ in shape")
        return zip(x.samples, y.samples).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// The sliders moved on both sides the same way.
    static func moved(_ notebook: Notebook) -> Notebook {
        var nb = notebook
        let changes: [String: [String: ParameterValue]] = [
            "darkenFormula": ["power": .number(2.5)], "darkenBuiltIn": ["power": .number(2.5)],
            "lit": ["exposure": .number(-0.4)], "foreground": ["contrast": .number(0.8)], "darker": ["background": .number(-3.5)],
            "noirBuiltIn": ["exposure": .number(-0.4), "contrast": .number(0.8), "background": .number(-3.5)],
            "makeupFormula": ["gamma": .number(1.7), "strength": .number(0.9)],
            "makeupBuiltIn": ["gamma": .number(1.7), "strength": .number(0.9)],
        ]
        for (k, cell) in nb.cells.enumerated() {
            if let change = changes[cell.id] { nb.cells[k].params = (cell.params ?? [:]).merging(change) { $1 } }
        }
        return nb
    }

    @Test func onThePortraitSample() throws {
        let photo = try EffectTestSupport.sample("portrait", width: 160)
        let renderer = NotebookRenderer(photo: photo)
        for notebook in [try Self.notebook(), Self.moved(try Self.notebook())] {
            for pair in Self.pairs {
                for request in [CellRenderRequest(width: 160), CellRenderRequest(width: 97), CellRenderRequest.crop(x: 30, y: 40, width: 64, height: 48)] {
                    let worst = try Self.worst(renderer, notebook, pair.formula, pair.builtIn, request)
                    #expect(worst <= 1, "\(pair.formula) vs \(pair.builtIn) at \(request): \(worst) levels")
                }
            }
        }
    }

    @Test(.enabled(if: SharedPhotos.available, "needs ../shared/photos"), arguments: RealPhotoNotebookTests.photos.map(\.name))
    func onTheSharedPhotos(file: String) throws {
        let depth = RealPhotoNotebookTests.photos.first { $0.name == file }?.depth
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path))
        let has = RealPhotoNotebookTests.available(photo)
        let renderer = NotebookRenderer(photo: photo, cacheBytes: 256 << 20)
        var compared = 0
        for notebook in [try Self.notebook(), Self.moved(try Self.notebook())] {
            for pair in Self.pairs where pair.needs.isSubset(of: has) {
                let crop = CellRenderRequest.crop(x: photo.width / 2 - 128, y: photo.height / 3, width: 256, height: 256)
                for request in [CellRenderRequest(width: 736), CellRenderRequest(width: 257), crop] {
                    let worst = try Self.worst(renderer, notebook, pair.formula, pair.builtIn, request)
                    #expect(worst <= 1, "\(file): \(pair.formula) vs \(pair.builtIn) at \(request): \(worst) levels")
                    compared += 1
                }
            }
        }
        #expect(compared > 0 || !has.contains("photo.disparity"))
    }
}
