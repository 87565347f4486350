import DepthbookDocument
import DepthbookEffects
@testable import DepthbookServer
import DepthbookTestSupport
import Foundation
import Testing

/// Mutated recipe XMP, as an uploaded export carries it, through `RecipeFromXMP` (its own unescaping, then the
/// notebook's decoding and checks): a notebook or nothing, never a trap; and a notebook it finds, written back the
/// way an export writes it, reads as itself.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct RecipeFromXMPFuzzTests {
    /// Each bundled notebook as the codecs rewrite an export's recipe: an element holding the escaped JSON.
    static func seeds() throws -> [[UInt8]] {
        let notebooks = PackageRoot.url.appendingPathComponent("Notebooks")
        return try FileManager.default.contentsOfDirectory(atPath: notebooks.path).sorted().filter { $0.hasSuffix(".json") }.map { name in
            let notebook = try JSONDecoder().decode(Notebook.self, from: Data(contentsOf: notebooks.appendingPathComponent(name)))
            return Array(try element(notebook).utf8)
        }
    }

    static func element(_ notebook: Notebook) throws -> String {
        let json = String(decoding: try NotebookIdentity.canonicalJSON(notebook), as: UTF8.self)
        return "<rdf:Description><depthbook:Cell>c</depthbook:Cell>"
            + "<depthbook:Notebook>\(RecipeXMP.escape(json))</depthbook:Notebook></rdf:Description>"
    }

    @Test func recipes() async throws {
        let dictionary = MutationFuzzer.tokens([
            "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#10;", "&#x41;", "&#xD800;", "&#1114112;", "&#x;", "&#;", "&bogus;", "&",
            ";", "&#99999999999;", "<depthbook:Notebook>", "</depthbook:Notebook>", "&quot;:&quot;", "{", "}", "[", "]", "\\u0000",
        ])
        let campaign = MutationFuzzer("recipe-xmp", seeds: try Self.seeds(), dictionary: dictionary, anchors: [0x26, 0x3C], executions: 6_000)
        let report = await campaign.run { input in
            guard let notebook = RecipeFromXMP.notebook(in: String(decoding: input, as: UTF8.self)) else { return "none" }
            let again = RecipeFromXMP.notebook(in: try Self.element(notebook))
            try FuzzFailure.check(again == notebook, "a recipe written back does not read as itself")
            return "notebook of \(notebook.cells.count) cells"
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }
}
