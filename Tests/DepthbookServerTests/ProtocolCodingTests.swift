import DepthbookDocument
import DepthbookEffects
import DepthbookFrames
import DepthbookMessages
import DepthbookProtocol
@testable import DepthbookServer
import Foundation
import Testing

@Suite(.timeLimit(.minutes(30)))
struct ProtocolCodingTests {
    func decode(_ text: String) -> (Int?, Result<StudioRequest, ProtocolError>) {
        let (id, result) = RequestDecoder.decode(Array(text.utf8))
        return (id, result)
    }

    func error(_ text: String) -> ProtocolError? {
        if case .failure(let e) = decode(text).1 { return e }
        return nil
    }

    @Test func decodesEachRequestType() throws {
        #expect(try decode(#"{"id":1,"type":"hello","protocol":1,"session":"abc"}"#).1.get()
                == .hello(.init(protocol: 1, session: "abc", resume: nil, watch: nil)))
        #expect(try decode(#"{"id":2,"type":"setParams","cell":"mask","params":{"percentile":40,"mode":"soft","on":true,"at":[0.5,0.25]},"seq":9,"interactive":true,"extra":1}"#).1.get()
                == .setParams(.init(cell: "mask", params: ["percentile": .number(40), "mode": .choice("soft"), "on": .bool(true),
                                                           "at": .point(x: 0.5, y: 0.25)], seq: 9, interactive: true)))
        #expect(try decode(#"{"id":3,"type":"crop","cell":"c","x":1,"y":2,"w":3,"h":4,"seq":0}"#).1.get()
                == .crop(.init(cell: "c", x: 1, y: 2, w: 3, h: 4, seq: 0)))
        #expect(try decode(#"{"id":4,"type":"openPhoto","photo":{"upload":"ab"}}"#).1.get() == .openPhoto(.init(photo: .upload("ab"))))
        #expect(try decode(#"{"id":5,"type":"export","cell":"c","format":"png"}"#).1.get() == .export(.init(cell: "c", format: .png)))
        #expect(try decode(#"{"id":6,"type":"export","cell":"w","format":"gif","frames":6,"width":200}"#).1.get()
                == .export(.init(cell: "w", format: .gif, frames: 6, width: 200)))
    }

    /// What a client encodes (`StudioRequest.message(id:)`, as the load test sends) is what the server decodes:
    /// every request type, with its id, comes back equal.
    @Test func everyRequestTheClientEncodesDecodesToItself() throws {
        let notebook = try JSONDecoder().decode(Notebook.self, from: Data(#"{"format":"depthbook.notebook","version":1,"name":"n","photo":{"sample":"portrait"},"cells":[{"id":"photo","kind":"photo"}]}"#.utf8))
        let requests: [StudioRequest] = [
            .hello(.init(protocol: 1, session: "s", resume: "r")), .listSamples, .listNotebooks, .effects,
            .openNotebook(.init(name: "depth-threshold")), .openNotebook(.init(shared: "abc")),
            .openPhoto(.init(photo: .upload("ab"))), .openPhoto(.init(photo: .sample("portrait"))),
            .setNotebook(.init(notebook: notebook)),
            .setParams(.init(cell: "mask", params: ["percentile": .number(40), "at": .point(x: 0.5, y: 0.25)], unset: ["gamma"],
                             seq: 9, interactive: true, offscreen: ["result"])),
            .preview(.init(cell: "c", width: 736, seq: 3, interactive: false)), .crop(.init(cell: "c", x: 1, y: 2, w: 3, h: 4, seq: 0)),
            .histogram(.init(cell: "c", bins: 128)), .save, .export(.init(cell: "w", format: .gif, frames: 6, width: 200)),
            .checkFormula(.init(formula: "image * 2", cell: "f")),
        ]
        for (index, request) in requests.enumerated() {
            let (id, decoded) = decode(try request.message(id: index + 1))
            #expect(id == index + 1)
            #expect(try decoded.get() == request, "\(request.type)")
        }
    }

    /// Events carry `type` "event", their name and their fields at the top level; a client reads back what the
    /// server sent, and a reply is not an event.
    @Test func everyEventTheServerSendsReadsBackAsItself() throws {
        let notebook = try JSONDecoder().decode(Notebook.self, from: Data(#"{"format":"depthbook.notebook","version":1,"name":"n","photo":{"sample":"portrait"},"cells":[{"id":"photo","kind":"photo"}]}"#.utf8))
        let events: [StudioEvent] = [
            .cellError(.init(cell: "mask", seq: 4, kind: "preview", message: "no depth")),
            .progress(.init(request: 7, fraction: 0.25)),
            .notebook(.init(notebook: notebook, graph: NotebookGraph(cells: ["photo": .init(renders: true, output: "image", reads: [], dependents: [])]),
                            photo: .object(["width": .number(64)]))),
            .notebook(.init(notebook: nil, graph: nil)),
            .photo(.init(photo: .object(["width": .number(64), "coming": .array([])]))),
        ]
        for event in events {
            let text = String(decoding: event.message(), as: UTF8.self)
            #expect(StudioEvent.decode(text) == event, "\(text)")
        }
        let wire = try JSONDecoder().decode(JSONValue.self, from: Data(events[0].message()))
        #expect(wire == .object(["type": .string("event"), "event": .string("cellError"), "cell": .string("mask"), "seq": .number(4),
                                 "kind": .string("preview"), "message": .string("no depth")]))
        #expect(!String(decoding: events[3].message(), as: UTF8.self).contains("notebook\":"), "a nil notebook is left out")
        #expect(StudioEvent.decode(#"{"id":1,"type":"reply","ok":true,"result":{}}"#) == nil)
        #expect(StudioEvent.progress(.init(request: 1, fraction: 3)) == .progress(.init(request: 1, fraction: 1)))
    }

    @Test func malformedInputGetsTypedErrorsWithTheIdWhenThereIsOne() {
        #expect(decode("not json").0 == nil)
        #expect(error("not json")?.code == .badRequest)
        #expect(error("[1,2]")?.code == .badRequest)
        #expect(decode(#"{"type":"hello"}"#).0 == nil)
        #expect(decode(#"{"id":-3,"type":"hello"}"#).0 == nil)
        #expect(decode(#"{"id":1.5,"type":"hello"}"#).0 == nil)
        #expect(decode(#"{"id":7,"type":"nope"}"#).0 == 7)
        #expect(error(#"{"id":7,"type":"nope"}"#)?.code == .unknownType)
        #expect(error(#"{"id":7}"#)?.code == .badRequest)
        #expect(error(#"{"id":8,"type":"preview","cell":"a","seq":1}"#)?.message.contains("width") == true)
        #expect(error(#"{"id":8,"type":"preview","cell":"a","width":4000,"seq":1}"#)?.code == .badRequest)
        #expect(error(#"{"id":9,"type":"crop","cell":"a","x":0,"y":0,"w":2000,"h":10,"seq":1}"#)?.code == .tooLarge)
        #expect(error(#"{"id":9,"type":"histogram","cell":"a","bins":1}"#)?.code == .badRequest)
        #expect(error(#"{"id":9,"type":"export","cell":"w","format":"gif","frames":121}"#)?.message.contains("frames") == true)
        #expect(error(#"{"id":9,"type":"export","cell":"w","format":"gif","width":8}"#)?.code == .badRequest)
        #expect(error(#"{"id":9,"type":"hello","protocol":2}"#)?.code == .unsupported)
        #expect(error(#"{"id":9,"type":"openNotebook","name":"a","shared":"b"}"#)?.code == .badRequest)
        #expect(error(#"{"id":9,"type":"setNotebook","notebook":{"format":"x"}}"#)?.code == .badRequest)
    }

    /// A message nested too deep to decode is still answered under its id, read without decoding: a client
    /// waiting on the id would otherwise wait for ever.
    @Test func aTooDeepRequestIsAnsweredUnderItsId() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let (id, result) = decode("{\"id\": 7, \"type\": \"setNotebook\", \"notebook\": \(deep)}")
        #expect(id == 7)
        guard case .failure(let error) = result else { Issue.record("decoded"); return }
        #expect(error.message.hasPrefix("a request nests arrays and objects at most"))
        // The id after the nest, spaced out, and only at the top level.
        #expect(decode("{\"type\": \"x\", \"n\": \(deep), \"id\" :\n 12 }").0 == 12)
        #expect(decode("{\"n\": {\"id\": 3, \"d\": \(deep)}}").0 == nil)
        #expect(decode("{\"s\": \"\\\"id\\\": 4\", \"d\": \(deep)}").0 == nil, "a key inside a string is not a key")
        for bad in ["\"7\"", "7.5", "-7", "0", "7e2", "99999999999999999999"] {
            #expect(decode("{\"id\": \(bad), \"d\": \(deep)}").0 == nil, "\(bad)")
        }
    }

    @Test func repliesCarryTheIdOrAnExplicitNull() throws {
        let failure = try JSONDecoder().decode(JSONValue.self, from: Data(ReplyEncoder.failure(id: nil, error: .badRequest("why"))))
        #expect(failure == .object(["id": .null, "type": .string("reply"), "ok": .bool(false),
                                    "error": .object(["code": .string("bad_request"), "message": .string("why")])]))
        let ok = try JSONDecoder().decode(JSONValue.self, from: Data(ReplyEncoder.ok(id: 4, result: CellSeqResult(cell: "a", seq: 2))))
        #expect(ok == .object(["id": .number(4), "type": .string("reply"), "ok": .bool(true),
                               "result": .object(["cell": .string("a"), "seq": .number(2)])]))
    }

    /// A client reads each reply back as the type the server wrote it with: the hello's limits as they are, a
    /// refused reply as its message.
    @Test func everyReplyReadsBackAsItsResultType() throws {
        var limits = Limits.studio
        limits.maxUploadBytes = 5 << 20
        limits.previewWidth = 100...900
        let hello = HelloResult(session: "s", resume: "r", protocol: 1, server: "depthbook test", resumed: false, role: .edit,
                                access: .read, limits: limits, planes: ["photo.image"], notebook: nil, graph: nil, photo: nil,
                                shared: nil, export: ResumedExport(request: 3, cell: "result", format: .gif))
        func reply(_ result: some Encodable) throws -> JSONValue {
            try JSONDecoder().decode(JSONValue.self, from: Data(ReplyEncoder.ok(id: 1, result: result)))
        }
        let read = try StudioResult.decode(HelloResult.self, fromReply: try reply(hello))
        #expect(read.limits == limits && read.access == .read && read.export?.format == .gif && read.resume == "r")
        let renders = SetParamsResult(cell: "mask", seq: 4, renders: [CellSeqResult(cell: "mask", seq: 4), CellSeqResult(cell: "result", seq: 4)],
                                      linked: [LinkedValue(cell: "mask2", name: "percentile", value: .number(40)),
                                               LinkedValue(cell: "mask3", name: "percentile", value: nil)])
        let decoded = try StudioResult.decode(SetParamsResult.self, fromReply: try reply(renders))
        #expect(decoded.renders == renders.renders && decoded.linked == renders.linked)
        // A member left out again is sent as null, so a page can tell it from an absent field.
        guard case .object(let top) = try reply(renders), case .object(let fields)? = top["result"],
              case .array(let linked)? = fields["linked"], case .object(let second)? = linked.last
        else { Issue.record("no linked values in the reply"); return }
        #expect(second["value"] == .null)
        let histogram = HistogramResult(bins: [3, 0, 1], min: 0.25, max: 2, marker: nil, holes: 5)
        #expect(try StudioResult.decode(HistogramResult.self, fromReply: try reply(histogram)) == histogram)
        let formula = CheckFormulaResult(sliders: [.init(name: "gain", min: 0, max: 2, default: 1, step: 0.01, position: 8)],
                                         output: nil, references: ["photo.image", "mask"])
        let problem = CheckFormulaResult(error: .init(position: 3, message: "a name was expected"))
        #expect(try StudioResult.decode(CheckFormulaResult.self, fromReply: try reply(formula)) == formula)
        #expect(try StudioResult.decode(CheckFormulaResult.self, fromReply: try reply(problem)) == problem)
        let refused = try JSONDecoder().decode(JSONValue.self, from: Data(ReplyEncoder.failure(id: 2, error: .badRequest("no such cell"))))
        #expect(throws: StudioResult.Failure.self) { try StudioResult.decode(CellSeqResult.self, fromReply: refused) }
        do { _ = try StudioResult.decode(CellSeqResult.self, fromReply: refused) } catch { #expect("\(error)" == "no such cell") }
    }

    @Test func binaryFramesRoundTrip() throws {
        let header = FrameHeader(cell: "mask", seq: 42, kind: .preview, width: 640, height: 480, coarse: true,
                                 renderMs: 12.5, cacheHits: 3, cacheMisses: 1)
        let payload: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x42]
        let bytes = BinaryFrame.encode(header: header, jpeg: payload)
        let n = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        #expect(bytes.count == 4 + n + payload.count)
        let (decoded, rest) = try BinaryFrame.decode(bytes)
        #expect(decoded == header)
        #expect(Array(rest) == payload)
        #expect(throws: BinaryFrame.DecodeError.truncated) { try BinaryFrame.decode([0, 0, 1, 0, 1]) }
    }
}
