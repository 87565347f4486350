import ArgumentParser
import DepthbookMessages
import Foundation

/// `depthbook protocol-schema`: the studio protocol's requests as a JSON Schema, for clients to check their
/// messages against (docs/protocol.md).
struct ProtocolSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "protocol-schema",
        abstract: "Print every request of the studio protocol as a JSON Schema (draft 2020-12), with this build's limits."
    )

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(RequestSchema.document()), as: UTF8.self))
    }
}
