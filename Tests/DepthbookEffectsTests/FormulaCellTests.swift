import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// Formula cells in the notebook: the JSON, validation at the door (positions kept), what a change re-renders,
/// the sliders as parameters (`ParameterCheck`), the recipe (missing planes named, sliders applied, the cache
/// reused across a slider's moves), and the page's `Formula.analyse`.
@Suite(.timeLimit(.minutes(30)))
struct FormulaCellTests {
    typealias S = EffectTestSupport

    static func decode(_ json: String) throws -> Notebook {
        try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(json.utf8))).notebook
    }

    static func notebookJSON(_ cells: String) -> String {
        #"{"format": "depthbook.notebook", "version": 1, "name": "t", "photo": {"sample": "portrait"}, "cells": [\#(cells)]}"#
    }

    // MARK: The format

    @Test func aFormulaCellRoundTrips() throws {
        let nb = try Self.decode(Self.notebookJSON(#"""
            {"id": "photo", "kind": "photo"},
            {"id": "dark", "kind": "formula", "formula": "image * pow(disparity, $power(0..4 = 1))", "params": {"power": 2.5}}
            """#))
        let cell = try #require(nb.cell("dark"))
        #expect(cell.kind == .formula && cell.kindName == "formula")
        #expect(cell.formula == "image * pow(disparity, $power(0..4 = 1))")
        #expect(cell.params == ["power": .number(2.5)])
        #expect(try NotebookValidator().check(nb).references(of: cell) == ["photo.image", "photo.disparity"])
        #expect(cell.rendersImage && !(Cell(id: "n", kind: .note).rendersImage))
        let again = try JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(nb))
        #expect(again == nb)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(cell)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "kind", "formula", "params"])
    }

    @Test func aFormulaCellWithoutItsLineIsRefused() {
        #expect(throws: NotebookError.invalid("formula cell \"f\" has no formula")) {
            try Self.decode(Self.notebookJSON(#"{"id": "f", "kind": "formula"}"#))
        }
    }

    @Test func validationKeepsTheFormulasPosition() throws {
        let cases: [(String, String, FormulaError)] = [
            (#"{"id": "f", "kind": "formula", "formula": "image * dispariti"}"#, "f",
             FormulaError(position: 8, message: "unknown name “dispariti” (did you mean “disparity”?); planes: image, disparity, depth, matte, skin, hair, teeth, glasses, sky, subject; no cell above can be named")),
            (#"{"id": "f", "kind": "formula", "formula": "g * 2"}, {"id": "g", "kind": "formula", "formula": "image"}"#, "f",
             FormulaError(position: 0, message: "“g” is a cell below this one; a formula reads only the photo's planes and the cells above it")),
            (#"{"id": "m", "kind": "step", "effect": "threshold", "inputs": {"input": "photo.disparity"}}, {"id": "f", "kind": "formula", "formula": "m.r"}"#, "f",
             FormulaError(position: 1, message: "“.r” picks a channel of an image, but this is a mask")),
            (#"{"id": "f", "kind": "formula", "formula": "f * 2"}"#, "f",
             FormulaError(position: 0, message: "“f” is this formula's own cell; a formula reads the photo's planes and the cells above it")),
            (#"{"id": "f", "kind": "formula", "formula": "(((image"}"#, "f",
             FormulaError(position: 8, message: "expected “)” to close the “(” at offset 2, found the end of the formula")),
        ]
        for (cells, cell, error) in cases {
            #expect(throws: NotebookError.formula(cell: cell, error), "\(cells)") { try Self.decode(Self.notebookJSON(cells)) }
        }
        let long = String(repeating: "1+", count: 1_500) + "1"
        #expect(throws: NotebookError.formula(cell: "f", FormulaError(position: 2_000, message: "a formula is at most 2000 characters; this one has 3001. Split it into several formula cells, each reading the one before"))) {
            try Self.decode(Self.notebookJSON(#"{"id": "f", "kind": "formula", "formula": "\#(long)"}"#))
        }
        #expect(NotebookError.formula(cell: "f", FormulaError(position: 8, message: "m")).description
                == "invalid notebook: cell \"f\": formula at offset 8: m")
    }

    /// A formula's references count like a step's: a cell it reads re-renders it, and chains stay bounded.
    @Test func formulasJoinTheGraph() throws {
        let nb = S.notebook([
            S.step("mask", "depthThreshold", ["disparity": "photo.disparity"]),
            Cell(id: "a", kind: .formula, formula: "image * mask"),
            Cell(id: "b", kind: .formula, formula: "a * 0.5 + skin"),
            Cell(id: "c", kind: .formula, formula: "image"),
        ])
        let checked = try NotebookValidator().check(nb)
        #expect(checked.dependents(of: "mask") == ["a", "b"])
        #expect(checked.dependents(of: "a") == ["b"])
        // The graph the page draws from says the same, with each cell's kind of picture.
        let graph = checked.graph
        #expect(graph.dependents(of: "mask") == ["a", "b"] && graph.dependents(of: "c") == [])
        #expect(graph.cells["mask"] == NotebookGraph.Node(renders: true, output: "plane", reads: [], dependents: ["a", "b"]))
        #expect(graph.cells["b"]?.reads == ["a"], "b reads a itself, and mask only through a")
        #expect(graph.cells["a"]?.output == "image" && graph.cells["c"]?.output == "image")
        var chain = [Cell(id: "c0", kind: .formula, formula: "image")]
        for k in 1...64 { chain.append(Cell(id: "c\(k)", kind: .formula, formula: "c\(k - 1) * 1")) }
        #expect(throws: NotebookError.self) { try NotebookValidator().check(S.notebook(chain)) }
    }

    // MARK: Sliders are parameters

    @Test func slidersAreCheckedLikeParameters() throws {
        let cell = Cell(id: "f", kind: .formula, formula: "image * $gain(0.5..2 = 1) + $lift(-0.1..0.1 = 0)")
        try ParameterCheck.check(["gain": .number(2), "lift": .number(-0.1)], cell: cell)
        try ParameterCheck.check([:], unset: ["gain"], cell: cell)
        #expect(throws: EffectError.unknownParameter(effect: "formula", name: "power")) {
            try ParameterCheck.check(["power": .number(1)], cell: cell)
        }
        #expect(throws: EffectError.unknownParameter(effect: "formula", name: "power")) {
            try ParameterCheck.check([:], unset: ["power"], cell: cell)
        }
        #expect(throws: EffectError.badParameter(effect: "formula", name: "gain", message: "must be between 0.5 and 2, not 3")) {
            try ParameterCheck.check(["gain": .number(3)], cell: cell)
        }
        #expect(throws: EffectError.badParameter(effect: "formula", name: "gain", message: "expects a number")) {
            try ParameterCheck.check(["gain": .choice("loud")], cell: cell)
        }
        #expect(throws: EffectError.badParameter(effect: "formula", name: "gain", message: "must be a finite number")) {
            try ParameterCheck.check(["gain": .number(.nan)], cell: cell)
        }
        // Steps go to their effect's table; other cells have no parameters.
        try ParameterCheck.check(["ev": .number(1)], cell: S.step("e", "exposure", ["image": "photo"]))
        #expect(throws: EffectError.self) { try ParameterCheck.check(["ev": .number(1)], cell: Cell(id: "n", kind: .note)) }
        #expect(throws: EffectError.badFormula(cell: "g", FormulaError(position: 3, message: "the formula ends where a value is expected"))) {
            try ParameterCheck.check([:], cell: Cell(id: "g", kind: .formula, formula: "1 +"))
        }
        // A whole notebook: a formula's stored values too.
        var nb = S.notebook([cell])
        try NotebookValidator().check(nb)
        nb.cells[1].params = ["gain": .number(9)]
        #expect(throws: EffectError.badRequest("cell \"f\": formula.gain: must be between 0.5 and 2, not 9")) { try NotebookValidator().check(nb) }
    }

    @Test func theSlidersValuesReachThePixels() throws {
        let photo = try S.sample("portrait", width: 64)
        var nb = S.notebook([Cell(id: "f", kind: .formula, formula: "image * $gain(0..2 = 1)"),
                             Cell(id: "half", kind: .formula, formula: "image * 0.5")])
        let renderer = NotebookRenderer(photo: photo)
        let original = try renderer.render(notebook: nb, cell: "photo", request: CellRenderRequest(width: 64)).pixels
        #expect(try renderer.render(notebook: nb, cell: "f", request: CellRenderRequest(width: 64)).pixels == original)
        nb.cells[1].params = ["gain": .number(0.5)]
        let halved = try renderer.render(notebook: nb, cell: "f", request: CellRenderRequest(width: 64)).pixels
        #expect(halved == (try renderer.render(notebook: nb, cell: "half", request: CellRenderRequest(width: 64)).pixels))
        nb.cells[1].params = ["gain": .number(5)]
        // Refused when the notebook arrives, not at the render.
        #expect(throws: EffectError.badRequest("cell \"f\": formula.gain: must be between 0 and 2, not 5")) { try NotebookValidator().check(nb) }
    }

    // MARK: The recipe

    @Test func missingPlanesAreNamed() throws {
        let table = try S.sample("still-life", width: 64)  // depth, no mattes
        let flat = Photo(image: table.image)          // no depth either
        let nb = S.notebook([Cell(id: "skin", kind: .formula, formula: "image * skin"),
                             Cell(id: "subject", kind: .formula, formula: "subject * 2"),
                             Cell(id: "depth", kind: .formula, formula: "1 - depth"),
                             Cell(id: "matte", kind: .formula, formula: "image * matte")])
        #expect(throws: EffectError.missingPlane("photo.skin")) {
            try NotebookRenderer(photo: table).render(notebook: nb, cell: "skin", request: CellRenderRequest(width: 32))
        }
        // The portrait matte stands in from depth, as it does for steps.
        let stood = try NotebookRenderer(photo: table).render(notebook: nb, cell: "matte", request: CellRenderRequest(width: 32))
        #expect(!stood.notes.isEmpty)
        for (cell, plane) in [("subject", "photo.disparity"), ("depth", "photo.depth")] {
            #expect(throws: EffectError.missingPlane(plane), "\(cell)") {
                try NotebookRenderer(photo: flat).render(notebook: nb, cell: cell, request: CellRenderRequest(width: 32))
            }
        }
    }

    /// The same line and values make the same node (one cache entry); moving a slider changes that formula's node
    /// and those below it, not the mask or the formulas above it, which the next render takes from the cache.
    @Test func aSlidersMoveReusesWhatItDoesNotChange() throws {
        let photo = try S.sample("portrait", width: 96)
        var nb = try #require(try S.bundledNotebooks().first { $0.name == "formulas" })
        func keys(_ notebook: Notebook) throws -> [String: NodeKey] {
            let context = EffectContext(photo: photo, photoID: "p", evaluator: Evaluator(), statistics: StatisticsCache(), uploads: nil)
            var builder = RecipeBuilder(notebook: try NotebookValidator().check(notebook), context: context)
            var keys = [String: NodeKey]()
            for id in ["mask", "foreground", "darker", "dark", "noirFormula"] { keys[id] = try builder.build(id).node.key }
            return keys
        }
        let before = try keys(nb)
        #expect(try keys(nb) == before)
        let index = try #require(nb.cells.firstIndex { $0.id == "darker" })
        nb.cells[index].params = ["background": .number(-3)]
        let after = try keys(nb)
        for id in ["mask", "foreground"] { #expect(after[id] == before[id], "\(id)") }
        for id in ["darker", "dark", "noirFormula"] { #expect(after[id] != before[id], "\(id)") }

        let renderer = NotebookRenderer(photo: photo)
        var original = nb
        original.cells[index].params = [:]
        _ = try renderer.render(notebook: original, cell: "noirFormula", request: CellRenderRequest(width: 96))
        let moved = try renderer.render(notebook: nb, cell: "noirFormula", request: CellRenderRequest(width: 96))
        #expect(moved.cacheHits > 0)
    }

    /// However a 500-part formula is written, its program keeps few rows per worker: registers are reused.
    @Test func aLargeFormulaKeepsFewRows() throws {
        let sum = (0..<120).map { "image * \($0 % 7 + 1)" }.joined(separator: " + ")
        let nested = String(repeating: "mix(image, ", count: 31) + "image" + String(repeating: ", skin)", count: 31)
        for text in [sum, nested] {
            let parsed = try FormulaParser.parse(text)
            #expect(parsed.nodes.count <= 500)
            let program = try FormulaCompiler.compile(parsed, bindings: parsed.names.map { _ in .input(0, normalize: nil) },
                                                      inputKinds: [.image], sliders: [])
            #expect(program.registerCount <= 40, "\(program.registerCount) registers")
        }
    }

    @Test func histogramsOfFormulaCells() throws {
        let photo = try S.sample("portrait", width: 64)
        let nb = S.notebook([Cell(id: "f", kind: .formula, histogram: true, formula: "disparity")])
        let h = try NotebookRenderer(photo: photo).histogram(notebook: nb, reference: "f", bins: 8)
        #expect(h.bins.reduce(0, +) > 0 && h.min >= 0 && h.max <= 1 && h.holes == 0)
    }

    // MARK: For the page

    @Test func theAnalysisThePageShows() throws {
        let nb = S.notebook([S.step("mask", "depthThreshold", ["disparity": "photo.disparity"]),
                             Cell(id: "f", kind: .formula, formula: "image")])
        let good = Formula.analyse("mix(image * $k(0..2 = 1), gray(mask), 0.5)", in: nb, before: "f")
        #expect(good.error == nil && good.formula?.sliders.map(\.name) == ["k"])
        // (Its JSON, the `checkFormula` reply, is the server's: StudioSessionTests.)
        #expect(good.formula?.output == .image && good.formula?.references == ["photo.image", "mask"])
        let slider = try #require(good.formula?.sliders.first)
        #expect(slider.min == 0 && slider.max == 2 && slider.defaultValue == 1 && slider.step == 0.01 && slider.position == 12)

        let bad = Formula.analyse("mix(image, f, 0.5)", in: nb, before: "f")
        #expect(bad.formula == nil && bad.error?.position == 11)
        #expect(bad.error?.message.hasPrefix("“f” is this formula's own cell") == true)
        // A cell to be added at the end sees every cell.
        #expect(Formula.analyse("f * mask", in: nb).error == nil)
        // The sliders as the page's controls show a step's parameters.
        let parameter = try #require(good.formula?.sliders.first?.parameter)
        #expect(parameter.kind == .number && parameter.min == 0 && parameter.max == 2 && parameter.defaultValue == .number(1))
    }
}
