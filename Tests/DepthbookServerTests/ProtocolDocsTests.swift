import DepthbookProtocol
@testable import DepthbookServer
import Foundation
import Testing

/// docs/protocol.md states the bounds a client meets; each must be the one `Limits` enforces (and `hello` sends).
/// A bound changed in `Limits` fails here until the document says the same.
@Suite(.timeLimit(.minutes(30)))
struct ProtocolDocsTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)) ?? ""
    }()

    static func range(_ r: ClosedRange<Int>) -> String { "\(r.lowerBound)...\(r.upperBound)" }

    @Test func theDocumentStatesTheLimitsTheServerChecks() throws {
        let limits = Limits.studio
        #expect(!Self.document.isEmpty, "docs/protocol.md not found")
        #expect(limits.maxMessageBytes == 1 << 20)
        #expect(limits.maxSeq == (1 << 53) - 1)
        let statements = [
            "a message over \(limits.maxMessageBytes >> 20) MiB (`too_large`",
            "`seq` (0...2^53−1)",
            "`width` (px, \(Self.range(limits.previewWidth)))",
            "`bins` (\(Self.range(limits.histogramBins)))",
            "`frames` \(Self.range(limits.exportFrames)) (default \(limits.defaultExportFrames))",
            "`width` \(Self.range(limits.exportWidth)) px wide (default \(limits.defaultExportWidth))",
            "over \(limits.maxUploadBytes >> 20) MiB by default",
            "(at its last preview width, \(limits.defaultPreviewWidth) if none yet)",
            "at most \(limits.maxCropSide)×\(limits.maxCropSide)",
            "(half the width, at least \(limits.coarseMinimumWidth) px)",
            "with \(Session.histogramsWaiting) different ones waiting",
            "a connection keeps at most \(SessionHub.sessionsPerConnection) sessions it made",
        ]
        for statement in statements {
            #expect(Self.document.contains(statement), "docs/protocol.md does not say \(statement)")
        }
    }
}
