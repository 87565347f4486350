import DepthbookDocument
@testable import DepthbookEffects
import Foundation
import Testing

/// A step's inputs are checked when the notebook comes in, not when it renders: the slots it names are its
/// effect's, the ones its effect needs are connected, and each reads the kind it takes wherever the notebook
/// tells that kind.
struct NotebookInputCheckTests {
    static func notebook(_ bigger: String, extra: String = "") -> Notebook {
        let json = #"""
        {"format": "depthbook.notebook", "version": 1, "name": "t", "photo": {"sample": "portrait"}, "cells": [
            {"id": "photo", "kind": "photo"},
            {"id": "note", "kind": "note", "text": "a note"},
            {"id": "gain", "kind": "formula", "formula": "image * $gain(0..1.4 = 1)"},
            {"id": "mask", "kind": "formula", "formula": "matte * 0.5"}\#(extra),
            {"id": "bigger", "kind": "step", "effect": "scaleSubject", "inputs": \#(bigger)}
        ]}
        """#
        return try! JSONDecoder().decode(Notebook.self, from: Data(json.utf8))
    }

    static func refusal(_ inputs: String, extra: String = "") -> String? {
        do {
            try NotebookValidator().check(notebook(inputs, extra: extra))
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test func rightInputsAreAccepted() throws {
        #expect(Self.refusal(#"{"image": "photo", "matte": "photo.portraitEffectsMatte"}"#) == nil)
        // A formula's kind is known from its line: an image formula feeds an image slot, a mask one a plane slot.
        #expect(Self.refusal(#"{"image": "gain", "matte": "mask"}"#) == nil)
    }

    @Test(arguments: [
        (#"{"image": "photo", "matte": "photo.portraitEffectsMatte", "mask": "photo"}"#, #"has no input "mask""#),
        (#"{"image": "photo.disparity", "matte": "photo.portraitEffectsMatte"}"#, #"input "image" needs an image, but "photo.disparity" is a plane"#),
        (#"{"image": "photo", "matte": "photo"}"#, #"input "matte" needs a plane"#),
        (#"{"image": "mask", "matte": "photo.portraitEffectsMatte"}"#, #"input "image" needs an image, but "mask" is a plane"#),
        (#"{"image": "photo", "matte": "gain"}"#, #"but "gain" is an image"#),
        (#"{"image": "note", "matte": "photo.portraitEffectsMatte"}"#, #"a note cell, which has no image"#),
    ])
    func wrongInputsAreRefusedWhenTheNotebookComesIn(inputs: String, message: String) throws {
        let refusal = try #require(Self.refusal(inputs), "refused: \(inputs)")
        #expect(refusal.contains(#"cell "bigger""#) && refusal.contains(message), "\(refusal)")
    }

    /// A slot left unconnected is a cell still being made: the notebook opens, and the cell says what it lacks when
    /// it renders.
    @Test func anUnconnectedInputIsSaidByItsCell() throws {
        #expect(Self.refusal(#"{"image": "photo"}"#) == nil)
        let renderer = NotebookRenderer(photo: try EffectTestSupport.sample("portrait", width: 64))
        #expect {
            try renderer.render(notebook: Self.notebook(#"{"image": "photo"}"#), cell: "bigger", request: CellRenderRequest(width: 64))
        } throws: { error in
            String(describing: error).contains(#"input "matte" is not connected"#)
        }
    }

    /// An effect this Depthbook does not know keeps its inputs unread: its cell says so when it renders, and the
    /// notebook (from a newer Depthbook, say) still opens.
    @Test func anUnknownEffectsInputsWaitForItsRender() throws {
        let extra = #", {"id": "later", "kind": "step", "effect": "fromTheFuture", "inputs": {"anything": "photo"}}"#
        #expect(Self.refusal(#"{"image": "photo", "matte": "photo.portraitEffectsMatte"}"#, extra: extra) == nil)
    }
}
