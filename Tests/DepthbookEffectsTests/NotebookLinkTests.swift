import DepthbookDocument
@testable import DepthbookEffects
import Foundation
import Testing

/// Links in the document: what the validator accepts, how a value moves along one, and old notebooks' links
/// (kept in the page's metadata) moved into the field when read.
struct NotebookLinkTests {
    static func notebook(links: String, metadata: String = "{}") -> String {
        #"""
        {"format": "depthbook.notebook", "version": 1, "name": "t", "photo": {"sample": "portrait"}, "cells": [
            {"id": "photo", "kind": "photo"},
            {"id": "bigger", "kind": "step", "effect": "scaleSubject", "inputs": {"image": "photo", "matte": "photo.portraitEffectsMatte"}, "params": {"scale": 1.5}},
            {"id": "newMatte", "kind": "step", "effect": "scaledMatte", "inputs": {"image": "photo", "matte": "photo.portraitEffectsMatte"}, "params": {"scale": 1.3}},
            {"id": "f", "kind": "formula", "formula": "image * $gain(0..1.4 = 1)"},
            {"id": "note", "kind": "note", "text": "a note"}
        ], "links": \#(links), "metadata": \#(metadata)}
        """#
    }

    static func checked(_ json: String) throws -> CheckedNotebook {
        try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(json.utf8)))
    }

    static func value(_ checked: CheckedNotebook, _ cell: String, _ name: String) -> Double? {
        checked.notebook.cell(cell)?.params?[name]?.number
    }

    @Test func membersFollowTheLeaderWhenRead() throws {
        let read = try Self.checked(Self.notebook(links: #"[{"label": "Scale", "params": ["bigger.scale", "newMatte.scale", "f.gain"]}]"#))
        #expect(Self.value(read, "bigger", "scale") == 1.5)
        #expect(Self.value(read, "newMatte", "scale") == 1.5)
        // Within the follower's own range: the formula's slider stops at 1.4.
        #expect(Self.value(read, "f", "gain") == 1.4)
    }

    @Test func aChangeToAnyMemberMovesThemAllWithinTheirRanges() throws {
        let read = try Self.checked(Self.notebook(links: #"[{"label": "Scale", "params": ["bigger.scale", "newMatte.scale", "f.gain"]}]"#))
        let moved = try read.setting(["scale": .number(1.2)], of: "newMatte")
        #expect(["bigger", "newMatte", "f"].map { Self.value(moved, $0, $0 == "f" ? "gain" : "scale") } == [1.2, 1.2, 1.2])
        #expect(moved.cellsLinked(to: "newMatte", names: ["scale"]) == ["bigger", "f"])
        #expect(moved.cellsLinked(to: "bigger", names: ["growth"]) == [])
        let up = try moved.setting(["scale": .number(1.9)], of: "bigger")
        #expect(Self.value(up, "f", "gain") == 1.4)
        // Left out again: every member takes its default (or the photo's value) once more.
        let unset = try up.setting([:], unset: ["gain"], of: "f")
        #expect(["bigger", "newMatte"].map { unset.notebook.cell($0)?.params?["scale"] } == [nil, nil])
        // A value the leader's range refuses is refused before anything moves.
        #expect(throws: EffectError.self) { try read.setting(["scale": .number(99)], of: "bigger") }
    }

    @Test(arguments: [
        (#"[{"label": "x", "params": []}]"#, "has 0 members"),
        (#"[{"label": "x", "params": ["bigger.scale", "ghost.scale"]}]"#, "names no cell"),
        (#"[{"label": "x", "params": ["bigger.scale", "newMatte.nope"]}]"#, "has no parameter"),
        (#"[{"label": "x", "params": ["bigger.scale", "f.nope"]}]"#, "declares no slider"),
        (#"[{"label": "x", "params": ["bigger.scale", "note.text"]}]"#, "has no parameters"),
        (#"[{"label": "x", "params": ["bigger.scale", "bigger.output"]}]"#, "only numbers are linked"),
        (#"[{"label": "x", "params": ["bigger.scale", "scale"]}]"#, "is not cell.parameter"),
        (#"[{"label": "x", "params": ["bigger.scale", "newMatte.scale"]}, {"label": "y", "params": ["newMatte.scale", "f.gain"]}]"#, "in two links"),
    ])
    func badLinksAreRefusedWithWhy(links: String, message: String) throws {
        do {
            _ = try Self.checked(Self.notebook(links: links))
            Issue.record("accepted \(links)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test func oldNotebooksKeptTheirLinksInMetadata() throws {
        let old = Self.notebook(links: "[]", metadata: #"{"source": "s", "links": [{"label": "Scale", "params": ["bigger.scale", "newMatte.scale"]}]}"#)
        let read = try JSONDecoder().decode(Notebook.self, from: Data(old.utf8))
        #expect(read.links == [NotebookLink(label: "Scale", params: ["bigger.scale", "newMatte.scale"])])
        #expect(read.metadata == ["source": .string("s")])
        // Written back, the link is a field of the document, and reads the same.
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(read)) as? [String: Any]
        #expect((written?["links"] as? [Any])?.count == 1)
        #expect(try JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(read)) == read)
        // A notebook without links writes no field.
        var none = read
        none.links = []
        let bare = try JSONSerialization.jsonObject(with: JSONEncoder().encode(none)) as? [String: Any]
        #expect(bare?["links"] == nil)
    }

    /// One Scale for the subject, its matte, the plate and the one-step recipe; the smaller copy's own, relabelled.
    @Test func bigHeadLinksItsFourScales() throws {
        let bigHead = try #require(try EffectTestSupport.bundledNotebooks().first { $0.name == "big-head" })
        #expect(bigHead.links.map(\.params) == [["bigger.scale", "newMatte.scale", "behind.scale", "recipe.scale"], ["smaller.scale"]])
        #expect(bigHead.links.map(\.label) == ["Scale", "Size of the smaller one"])
        #expect(bigHead.metadata["links"] == nil)
    }
}
