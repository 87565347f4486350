import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
import DepthbookTestSupport
import Foundation
import Testing

/// Mutated studio messages through `RequestDecoder` (the nesting scan, the envelope, every request type, notebooks
/// with their checks): each is a request or a `ProtocolError` with a message, a request always has its id, and
/// a request the server accepts is one a client can send again: encoded (`StudioRequest.message(id:)`) it
/// decodes to itself under the same id.
@Suite(.timeLimit(.minutes(MutationFuzzer.timeLimitMinutes)))
struct RequestDecoderFuzzTests {
    /// A message of every request type, and `setNotebook` with each bundled notebook.
    static func seeds() throws -> [[UInt8]] {
        var messages = [
            #"{"id":1,"type":"hello","protocol":1,"session":"abc","resume":"r","watch":"w"}"#,
            #"{"id":2,"type":"setParams","cell":"mask","params":{"percentile":40,"mode":"soft","on":true,"at":[0.5,0.25]},"unset":["gamma"],"seq":9,"interactive":true,"offscreen":["result"],"extra":1}"#,
            #"{"id":3,"type":"crop","cell":"c","x":1,"y":2,"w":3,"h":4,"seq":0}"#,
            #"{"id":4,"type":"openPhoto","photo":{"upload":"ab"}}"#,
            #"{"id":5,"type":"openPhoto","photo":{"sample":"portrait"}}"#,
            #"{"id":6,"type":"export","cell":"w","format":"gif","frames":6,"width":200}"#,
            #"{"id":7,"type":"preview","cell":"c","width":736,"seq":3,"interactive":false}"#,
            #"{"id":8,"type":"histogram","cell":"c","bins":128}"#,
            #"{"id":9,"type":"checkFormula","formula":"image * $a(0..1 = 0.5)","cell":"f"}"#,
            #"{"id":10,"type":"openNotebook","name":"depth-threshold"}"#,
            #"{"id":11,"type":"openNotebook","shared":"abc123"}"#,
            #"{"type":"listSamples","id":12}"#, #"{"id":13,"type":"listNotebooks"}"#, #"{"id":14,"type":"effects"}"#,
            #"{"id":15,"type":"save"}"#, #" { "id" : 16 , "type" : "export" , "cell" : "\u0063" , "format" : "mp4" } "#,
        ]
        let notebooks = PackageRoot.url.appendingPathComponent("Notebooks")
        for (k, name) in try FileManager.default.contentsOfDirectory(atPath: notebooks.path).sorted().enumerated() where name.hasSuffix(".json") {
            let text = try String(contentsOf: notebooks.appendingPathComponent(name), encoding: .utf8)
            messages.append("{\"id\":\(100 + k),\"type\":\"setNotebook\",\"notebook\":\(text)}")
        }
        return messages.map { Array($0.utf8) }
    }

    static let dictionary = [
        "{", "}", "[", "]", "\"", ":", ",", " ", "null", "true", "false", "0", "-0", "1e400", "-1", "1.5", "9007199254740993", "\\",
        "\\u0000", "\\ud800", "\\\"", "\u{0}", "é", "\"id\":", "\"type\":", "\"id\":7,", "{\"id\":1,\"type\":\"", "hello", "setParams",
        "setNotebook", "preview", "crop", "histogram", "export", "checkFormula", "openNotebook", "openPhoto", "\"protocol\":1",
        "\"cell\":\"c\"", "\"seq\":", "\"width\":", "\"params\":{", "\"point\"", "\"x\":", "\"format\":", "\"version\":", "\"cells\":[",
        "\"kind\":\"formula\"", "\"formula\":\"", "\"inputs\":{", "\"effect\":\"", "\"metadata\":{", "[[[[[[[[[[[[[[[[",
        "{\"a\":{\"a\":{\"a\":{\"a\":", "\"photo\":{\"sample\":\"portrait\"}",
    ]

    @Test func requestMessages() async throws {
        let campaign = MutationFuzzer("request-decoder", seeds: try Self.seeds(), dictionary: MutationFuzzer.tokens(Self.dictionary),
                                      anchors: [0x22, 0x7B, 0x3A], executions: 30_000)
        let report = await campaign.run { input in
            let (id, result) = RequestDecoder.decode(input)
            switch result {
            case .failure(let error):
                try FuzzFailure.check(!error.message.isEmpty, "a \(error.code) without a message")
                return "\(error.code.rawValue) \(error.message.prefix(80))"
            case .success(let request):
                guard let id else { throw FuzzFailure("a \(request.type) request without an id") }
                let message = try request.message(id: id)
                let (idAgain, again) = RequestDecoder.decode(Array(message.utf8))
                try FuzzFailure.check(idAgain == id && again == .success(request),
                                      "\(request.type) encoded as \(message.prefix(400)) decodes to \(again) under id \(String(describing: idAgain))")
                return "ok \(request.type)"
            }
        }
        print(report)
        for failure in report.failures { Issue.record("\(report.name) \(failure)") }
        #expect(report.failureCount == 0, "\(report)")
    }
}
