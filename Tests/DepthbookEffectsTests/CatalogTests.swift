import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// The effect catalog and the bundled notebooks: documented, consistent, and renderable on the samples.
@Suite(.timeLimit(.minutes(30)))
struct CatalogTests {
    typealias S = EffectTestSupport

    @Test func everyEffectIsDocumentedAndItsDefaultsAreValid() throws {
        let all = NotebookRenderer.catalog
        #expect(Set(all.map(\.id)).count == all.count, "effect ids must be unique")
        for effect in all {
            #expect(!effect.title.isEmpty && !effect.summary.isEmpty, "\(effect.id) lacks a title or summary")
            #expect(Set(effect.parameters.map(\.name)).count == effect.parameters.count)
            for p in effect.parameters {
                #expect(!p.label.isEmpty && !p.doc.isEmpty, "\(effect.id).\(p.name) is undocumented")
                if p.kind == .number {
                    let lo = try #require(p.min), hi = try #require(p.max), value = try #require(p.defaultValue.number)
                    #expect(lo <= value && value <= hi, "\(effect.id).\(p.name) default outside its range")
                }
                if p.kind == .choice, case .choice(let c) = p.defaultValue { #expect(p.choices.contains(c)) }
            }
            _ = ResolvedParameters([:], for: effect)
        }
        for id in ["depthThreshold", "matteSeparation", "bigHead", "marching", "makeup", "hairColor", "teethWhitening",
                   "glassesTint", "backdrop", "threshold", "closing", "feather", "noir", "exposure", "blendWithMask", "resize"] {
            #expect(all.contains { $0.id == id }, "catalog lacks \(id)")
        }
    }

    /// The JSON the `effects` request answers has the protocol's field names.
    /// Values are read through typed handles: the cell's value when given, else the row's default; a handle
    /// read against another effect's table gets its own default, not a zero.
    @Test func handlesReadTheCellsValueOrTheirOwnDefault() throws {
        let given = ResolvedParameters(["radius": .number(5)], for: ClosingEffect.description)
        #expect(given[ClosingEffect.radius] == 5 && given.isGiven(ClosingEffect.radius))
        let left = ResolvedParameters([:], for: ClosingEffect.description)
        #expect(left[ClosingEffect.radius] == 20 && !left.isGiven(ClosingEffect.radius))
        let elsewhere = ResolvedParameters([:], for: ResizeEffect.description)
        #expect(elsewhere[ClosingEffect.radius] == 20)
        #expect(elsewhere[ResizeEffect.method] == "bilinear")
    }

    @Test func catalogEncodesInTheProtocolShape() throws {
        let data = try JSONEncoder().encode(NotebookRenderer.catalog)
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let threshold = try #require(list.first { $0["id"] as? String == "threshold" })
        #expect(threshold["output"] as? String == "plane")
        let inputs = try #require(threshold["inputs"] as? [[String: Any]])
        #expect(inputs.first?["name"] as? String == "input" && inputs.first?["kind"] as? String == "plane")
        #expect(inputs.first?["optional"] as? Bool == false)
        let parameter = try #require((threshold["parameters"] as? [[String: Any]])?.first)
        #expect(parameter["name"] as? String == "percentile" && parameter["type"] as? String == "number")
        #expect(parameter["min"] as? Double == 0 && parameter["max"] as? Double == 100 && parameter["default"] as? Double == 40)
        #expect(parameter["fromPhoto"] as? Bool == true, "left out, the cut is found from the photo")
        #expect(parameter["unit"] as? String == "%" && (parameter["doc"] as? String)?.isEmpty == false)
        if case .array(let items) = NotebookRenderer.catalogJSON { #expect(items.count == list.count) } else { Issue.record("catalogJSON is not an array") }
    }

    @Test func bundledNotebooksAreTheSixOfTheTalks() throws {
        let notebooks = try S.bundledNotebooks()
        #expect(Set(notebooks.map(\.name)) == ["depth-threshold", "matte-separation", "big-head", "marching", "makeup", "backdrop",
                                               // Depth as a third dimension (issue #5).
                                               "blend-mask", "darken", "depth-of-field", "dolly-zoom", "point-cloud",
                                               "lens-correction", "wiggle", "upsampling",
                                               // Formula cells (issue 28).
                                               "formulas"])
        for nb in notebooks {
            #expect(nb.photo == .sample("portrait"))
            for cell in nb.cells where cell.kind == .step {
                let effect = try #require(EffectCatalog.effect(cell.effect ?? ""), "\(nb.name)/\(cell.id) names an unknown effect")
                _ = ResolvedParameters(cell.params ?? [:], for: effect.description)
            }
            // Re-encoding keeps the document (the format the server saves and the page edits).
            let again = try JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(nb))
            #expect(again == nb)
        }
    }

    /// A bundled notebook states only what differs from the defaults (issue 37): a value equal to its parameter's
    /// default is there only when leaving it out renders something else (a point or a percentile picked from the
    /// photo when left out, an option read only when given). Checked by rendering each such cell both ways.
    @Test func bundledNotebooksStateOnlyWhatDiffersFromTheDefaults() throws {
        let photo = try S.sample("portrait", width: 96)
        let renderer = NotebookRenderer(photo: photo)
        var restated: [String] = []
        for nb in try S.bundledNotebooks() {
            for (index, cell) in nb.cells.enumerated() where cell.kind == .step {
                let effect = try #require(EffectCatalog.effect(cell.effect ?? ""))
                for parameter in effect.description.parameters where cell.params?[parameter.name] == parameter.defaultValue {
                    var without = nb
                    without.cells[index].params?[parameter.name] = nil
                    let stated = try renderer.render(notebook: nb, cell: cell.id, request: CellRenderRequest(width: 48))
                    let left = try renderer.render(notebook: without, cell: cell.id, request: CellRenderRequest(width: 48))
                    if stated.image.samples == left.image.samples { restated.append("\(nb.name)/\(cell.id).\(parameter.name)") }
                }
            }
        }
        #expect(restated.isEmpty, "values that restate their default: \(restated.joined(separator: " "))")
    }

    /// Every cell of every bundled notebook renders on the sample it opens on.
    @Test func everyBundledCellRendersOnThePortraitSample() throws {
        let photo = try S.sample("portrait", width: 96)
        let renderer = NotebookRenderer(photo: photo)
        for nb in try S.bundledNotebooks() {
            for cell in nb.cells where cell.kind != .note {
                let out = try renderer.render(notebook: nb, cell: cell.id, request: CellRenderRequest(width: 48))
                #expect(out.image.width == 48 && out.image.channels == 3, "\(nb.name)/\(cell.id)")
            }
            for cell in nb.cells where cell.histogram == true {
                let h = try renderer.histogram(notebook: nb, reference: cell.id, bins: 16)
                #expect(h.bins.count == 16)
            }
        }
    }
}

/// `docs/effects.md` is the catalog's own Markdown: regenerate it with `DEPTHBOOK_WRITE_DOCS=1 swift test --filter effectsReference`.
@Suite(.timeLimit(.minutes(30)))
struct EffectsReferenceTests {
    @Test func effectsReferenceIsCurrent() throws {
        let url = EffectTestSupport.packageRoot.appendingPathComponent("docs/effects.md")
        let expected = EffectCatalog.markdown
        if ProcessInfo.processInfo.environment["DEPTHBOOK_WRITE_DOCS"] == "1" {
            try Data(expected.utf8).write(to: url)
        }
        let current = try String(contentsOf: url, encoding: .utf8)
        #expect(current == expected, "docs/effects.md is out of date: regenerate it (see this test's doc comment)")
    }
}
