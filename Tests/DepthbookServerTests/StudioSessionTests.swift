import DepthbookDocument
import DepthbookProtocol
import Foundation
import DepthbookEffects
import Testing
@testable import DepthbookServer
import DepthbookFrames

/// Sessions end to end through the studio, with a fake renderer and in-memory connections.
@Suite(.timeLimit(.minutes(30)))
struct StudioSessionTests {
    func opened(_ studio: Studio, id: UInt64 = 1) throws -> TestClient {
        try openedWithSession(studio, id: id).client
    }

    func openedWithSession(_ studio: Studio, id: UInt64 = 1) throws -> (client: TestClient, session: String, resume: String) {
        let client = TestClient(studio: studio, id: id)
        let hello = try #require(client.request(["type": "hello", "protocol": 1]))
        guard case .string(let session) = hello.result["session"], case .string(let resume) = hello.result["resume"] else {
            throw ProtocolError.badRequest("no session or resume key in \(hello)")
        }
        let open = try #require(client.request(["type": "openNotebook", "name": "depth-threshold"]))
        #expect(open.ok, "\(open)")
        return (client, session, resume)
    }

    /// Frames in arrival order until `done` holds for them (or 60 s pass with nothing new: a recorded failure).
    func frames(_ client: TestClient, until done: ([(FrameHeader, String)]) -> Bool) -> [(FrameHeader, String)] {
        var out: [(FrameHeader, String)] = []
        while !done(out) {
            guard let message = client.next(within: 60) else {
                Issue.record("timed out waiting for frames; got \(out.map { "\($0.0.cell)#\($0.0.seq)" })")
                return out
            }
            if case .frame(let h, let p) = message { out.append((h, p)) }
        }
        return out
    }

    /// Frames until every cell in `cells` has shown its full (not coarse) frame answering `seq` or a newer one.
    func frames(_ client: TestClient, untilFull seq: Int, of cells: Set<String> = ["mask"]) -> [(FrameHeader, String)] {
        frames(client) { got in
            cells.allSatisfy { cell in got.contains { $0.0.cell == cell && !$0.0.coarse && $0.0.seq >= seq } }
        }
    }

    @Test func requestsBeforeHelloAreRefused() throws {
        let client = TestClient(studio: try StudioFixture.studio(), id: 1)
        #expect(client.request(["type": "listSamples"])?.errorCode == "bad_request")
    }

    @Test func openAndPreview() throws {
        let client = try opened(try StudioFixture.studio())
        let reply = try #require(client.request(["type": "preview", "cell": "mask", "width": 300, "seq": 1]))
        #expect(reply.result == ["cell": "mask", "seq": 1])
        let got = frames(client, untilFull: 1)
        #expect(got.count == 1)
        let header = try #require(got.first?.0)
        #expect(header.cell == "mask" && header.seq == 1 && header.kind == .preview && !header.coarse)
        #expect(header.width == 300 && header.height == 150 && header.cacheHits == 1 && header.cacheMisses == 2)
        #expect(header.renderMs >= 0, "the time the fake render took, measured by the session")
        #expect(got.first?.1 == "mask:60")
        #expect(client.request(["type": "preview", "cell": "intro", "width": 300, "seq": 2])?.errorCode == "bad_request")
        #expect(client.request(["type": "preview", "cell": "ghost", "width": 300, "seq": 2])?.errorCode == "not_found")
    }

    @Test func aBurstOfChangesYieldsOnlyTheNewestFrame() throws {
        let backend = FakeBackend()
        let client = try opened(try StudioFixture.studio(backend: backend))
        backend.gate.close()
        #expect(client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 0], "seq": 1])?.ok == true)
        #expect(backend.gate.awaitEntry())  // the first render is now in flight and held
        for seq in 2...100 {
            let reply = client.request(["type": "setParams", "cell": "mask", "params": ["percentile": .number(Double(seq))], "seq": .number(Double(seq))])
            #expect(reply?.ok == true)
        }
        backend.gate.open()
        let got = frames(client, untilFull: 100)
        #expect(got.map(\.0.seq) == [100])
        #expect(got.map(\.1) == ["mask:100"])
        // Then, in the background once the newest frame went out, the cell is rendered as a drag would: once
        // more at its width, twice at the coarse width (half of 1024). Wait for them (60 s at most).
        #expect(backend.gate.awaitRendered(5))
        let rendered = backend.gate.rendered.withLock { $0 }
        #expect(rendered.map(\.cell) == Array(repeating: "mask", count: 5), "only the first and the newest were rendered, then the preparation")
        #expect(rendered.map(\.width) == [1024, 1024, 1024, 512, 512])
        // A stale sequence number is refused, and the session lives on.
        #expect(client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 1], "seq": 50])?.errorCode == "bad_request")
        #expect(client.request(["type": "listSamples"])?.ok == true)
    }

    @Test func interactiveChangesSendCoarseThenFull() throws {
        let backend = FakeBackend()
        let client = try opened(try StudioFixture.studio(backend: backend))
        _ = client.request(["type": "preview", "cell": "mask", "width": 800, "seq": 1])
        _ = frames(client, untilFull: 1)
        // The first full preview is followed by the drag's preparation (three renders in one background job).
        // Closing the gate while it still runs would hold it there, and the coarse pass queued behind it.
        #expect(backend.gate.awaitRendered(4))
        backend.gate.close()
        _ = client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 30], "seq": 2, "interactive": true])
        #expect(backend.gate.awaitEntry())  // the coarse pass
        backend.gate.allowOne()
        #expect(backend.gate.awaitEntry())  // the full pass, held until the coarse frame has been read
        var got = frames(client) { $0.count == 1 }
        backend.gate.open()
        got += frames(client, untilFull: 2)
        #expect(got.map(\.0.coarse) == [true, false])
        #expect(got.map(\.0.width) == [400, 800])
        #expect(got.allSatisfy { $0.0.seq == 2 && $0.1 == "mask:30" })
    }

    /// The server owns the graph: the notebook comes with it, and which cells a change re-renders follows a
    /// formula's references as the line says now (the page keeps no graph of its own).
    @Test func aFormulasReferencesDecideWhatAChangeRerenders() throws {
        let client = try opened(try StudioFixture.studio())
        func notebook(formula: String) throws -> JSONValue {
            var notebook = StudioFixture.notebook
            notebook.cells.append(Cell(id: "f", kind: .formula, formula: formula))
            return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(notebook))
        }
        func graph(_ reply: [String: JSONValue]?) throws -> NotebookGraph {
            try JSONDecoder().decode(NotebookGraph.self, from: JSONEncoder().encode(try #require(reply?.result["graph"])))
        }
        func renders(_ reply: [String: JSONValue]?) -> JSONValue? { reply?.result["renders"] }

        let reading = client.request(["type": "setNotebook", "notebook": try notebook(formula: "image * mask")])
        #expect(try graph(reading).dependents(of: "mask") == ["result", "f"])
        #expect(try graph(reading).cells["f"] == NotebookGraph.Node(renders: true, output: "image", reads: ["mask"], dependents: []))
        #expect(try graph(reading).cells["intro"]?.renders == false)
        _ = client.request(["type": "preview", "cell": "f", "width": 100, "seq": 1])
        _ = frames(client, untilFull: 1, of: ["f"])
        let moved = client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 20], "seq": 2])
        #expect(renders(moved) == .array([.object(["cell": "mask", "seq": 2]), .object(["cell": "f", "seq": 2])]))
        #expect(Set(frames(client, untilFull: 2, of: ["mask", "f"]).map(\.0.cell)) == ["mask", "f"])

        // The line no longer names the mask: moving it renders the mask alone.
        let apart = client.request(["type": "setNotebook", "notebook": try notebook(formula: "image * 0.5")])
        #expect(try graph(apart).dependents(of: "mask") == ["result"] && graph(apart).cells["f"]?.reads == [])
        let again = client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 30], "seq": 3])
        #expect(renders(again) == .array([.object(["cell": "mask", "seq": 3])]))
    }

    /// Two masks whose percentiles a link joins (as Big Head's three Scales): one `setParams` from any client moves
    /// both, re-renders both, and a watcher is shown both; a notebook read out of step comes to the leader's value.
    @Test func aLinkMovesEveryMemberForEveryClient() throws {
        let studio = try StudioFixture.studio()
        let (editor, session, _) = try openedWithSession(studio)
        var notebook = StudioFixture.notebook
        notebook.cells.append(Cell(id: "mask2", kind: .step, effect: "depthThreshold", inputs: ["disparity": "photo.disparity"],
                                   params: ["percentile": .number(10)]))
        notebook.links = [NotebookLink(label: "Percentile", params: ["mask.percentile", "mask2.percentile"])]
        func percentiles(_ value: JSONValue?) throws -> [Double?] {
            let read = try JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(try #require(value)))
            return ["mask", "mask2"].map { read.cell($0)?.params?["percentile"]?.number }
        }
        let set = editor.request(["type": "setNotebook", "notebook": try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(notebook))])
        #expect(try percentiles(set?.result["notebook"]) == [60, 60], "the follower comes to its leader's value")

        _ = editor.request(["type": "preview", "cell": "mask", "width": 100, "seq": 1])
        _ = editor.request(["type": "preview", "cell": "mask2", "width": 100, "seq": 1])
        #expect(Set(frames(editor, untilFull: 1, of: ["mask", "mask2"]).map(\.1)) == ["mask:60", "mask2:60"])
        let watcher = TestClient(studio: studio, id: 2)
        _ = watcher.request(["type": "hello", "protocol": 1, "watch": .string(session)])
        let moved = editor.request(["type": "setParams", "cell": "mask", "params": ["percentile": 25], "seq": 2])
        #expect(moved?.result["renders"] == .array([.object(["cell": "mask", "seq": 2]), .object(["cell": "mask2", "seq": 2])]))
        #expect(moved?.result["linked"] == .array([.object(["cell": "mask2", "name": "percentile", "value": 25])]))
        let got = frames(editor, untilFull: 2, of: ["mask", "mask2"])
        #expect(Set(got.filter { $0.0.seq == 2 && !$0.0.coarse }.map(\.1)) == ["mask:25", "mask2:25"])
        #expect(frames(watcher, untilFull: 2, of: ["mask2"]).contains { $0.1 == "mask2:25" })

        // The follower moved by another client (or the command line's file) moves the leader the same way.
        let back = editor.request(["type": "setParams", "cell": "mask2", "params": ["percentile": 40], "seq": 3])
        #expect(back?.result["renders"] == .array([.object(["cell": "mask2", "seq": 3]), .object(["cell": "mask", "seq": 3])]))
        #expect(back?.result["linked"] == .array([.object(["cell": "mask", "name": "percentile", "value": 40])]))
        #expect(Set(frames(editor, untilFull: 3, of: ["mask", "mask2"]).filter { $0.0.seq == 3 && !$0.0.coarse }.map(\.1)) == ["mask:40", "mask2:40"])
        // Left out again: the leader goes back to its default with it, said as null.
        let unset = editor.request(["type": "setParams", "cell": "mask2", "params": [:], "unset": ["percentile"], "seq": 4])
        #expect(unset?.result["linked"] == .array([.object(["cell": "mask", "name": "percentile", "value": .null])]))
    }

    @Test func dependentCellsWithAPreviewRerenderWithTheSameSeq() throws {
        let client = try opened(try StudioFixture.studio())
        _ = client.request(["type": "preview", "cell": "result", "width": 200, "seq": 1])
        _ = frames(client, untilFull: 1, of: ["result"])
        _ = client.request(["type": "setParams", "cell": "mask", "params": ["percentile": 10], "seq": 2])
        let got = frames(client, untilFull: 2, of: ["mask", "result"])
        #expect(Set(got.map(\.0.cell)) == ["mask", "result"])
        #expect(got.allSatisfy { $0.0.seq == 2 })
        #expect(got.first { $0.0.cell == "result" }?.0.width == 200)
    }

    @Test func watchersSeeTheSameFramesAndCannotEdit() throws {
        let studio = try StudioFixture.studio()
        let (editor, session, _) = try openedWithSession(studio, id: 1)
        let watcher = TestClient(studio: studio, id: 2)
        let hello = try #require(watcher.request(["type": "hello", "protocol": 1, "watch": .string(session)]))
        #expect(hello.result["role"] == "watch")
        #expect(hello.result["notebook"] != nil)
        _ = editor.request(["type": "setParams", "cell": "mask", "params": ["percentile": 25], "seq": 5])
        #expect(frames(editor, untilFull: 5).map(\.1) == ["mask:25"])
        #expect(frames(watcher, untilFull: 5).map(\.1) == ["mask:25"])
        #expect(watcher.request(["type": "setParams", "cell": "mask", "params": ["percentile": 1], "seq": 6])?.errorCode == "forbidden")
        #expect(watcher.request(["type": "save"])?.errorCode == "forbidden")
        #expect(TestClient(studio: studio, id: 3).request(["type": "hello", "protocol": 1, "watch": "nope"])?.errorCode == "not_found")
    }

    @Test func aSessionSurvivesAReconnectWithinTheGracePeriod() throws {
        let studio = try StudioFixture.studio()
        let (first, session, resume) = try openedWithSession(studio, id: 1)
        _ = first.request(["type": "setParams", "cell": "mask", "params": ["percentile": 33], "seq": 1])
        _ = frames(first, untilFull: 1)
        studio.disconnected(first.connection)
        #expect(studio.hub.sweep() == 0, "still within the grace period")
        // The id alone is what a watch link carries: it starts a session of its own.
        let stranger = try #require(TestClient(studio: studio, id: 3).request(["type": "hello", "protocol": 1, "session": .string(session)]))
        #expect(stranger.result["resumed"] == false && stranger.result["session"] != .string(session))
        let second = TestClient(studio: studio, id: 2)
        let hello = try #require(second.request(["type": "hello", "protocol": 1, "session": .string(session), "resume": .string(resume)]))
        #expect(hello.result["resumed"] == true)
        #expect(hello.result["session"] == .string(session))
        guard case .object(let notebook) = hello.result["notebook"], case .array(let cells) = notebook["cells"] else {
            Issue.record("the resumed session has no notebook")
            return
        }
        #expect(cells.count == 4)
        #expect(frames(second, untilFull: 1).map(\.1) == ["mask:33"], "the newest frame is replayed")
    }

    /// A resume key is spent when used: the editor gets a new one, and the old one takes nobody back.
    @Test func aResumeKeyWorksOnceAndIsReplaced() throws {
        let studio = try StudioFixture.studio()
        let (first, session, resume) = try openedWithSession(studio, id: 1)
        studio.disconnected(first.connection)
        let second = TestClient(studio: studio, id: 2)
        let hello = try #require(second.request(["type": "hello", "protocol": 1, "session": .string(session), "resume": .string(resume)]))
        #expect(hello.result["resumed"] == true)
        guard case .string(let next) = hello.result["resume"] else { Issue.record("no new key in \(hello)"); return }
        #expect(next != resume && next.count == resume.count)
        studio.disconnected(second.connection)
        let replay = try #require(TestClient(studio: studio, id: 3).request(["type": "hello", "protocol": 1, "session": .string(session), "resume": .string(resume)]))
        #expect(replay.result["resumed"] == false && replay.result["session"] != .string(session))
        let third = try #require(TestClient(studio: studio, id: 4).request(["type": "hello", "protocol": 1, "session": .string(session), "resume": .string(next)]))
        #expect(third.result["resumed"] == true && third.result["session"] == .string(session))
    }

    /// One socket saying hello again and again keeps at most `sessionsPerConnection` sessions: the oldest it left
    /// make room (50,000 hellos once made 50,001 sessions).
    @Test func oneConnectionCannotPileUpSessions() throws {
        let studio = try StudioFixture.studio()
        let client = TestClient(studio: studio, id: 1)
        var ids = Set<String>()
        for _ in 0..<500 {
            let hello = try #require(client.request(["type": "hello", "protocol": 1]))
            if case .string(let id) = hello.result["session"] { ids.insert(id) }
        }
        #expect(ids.count == 500, "every hello answered with a session of its own")
        #expect(studio.hub.count == SessionHub.sessionsPerConnection)
        // Another connection's sessions are not touched.
        let other = try opened(studio, id: 2)
        for _ in 0..<10 { _ = client.request(["type": "hello", "protocol": 1]) }
        #expect(studio.hub.count == SessionHub.sessionsPerConnection + 1)
        #expect(other.request(["type": "listNotebooks"])?.ok == true)
    }

    /// Past `maxSessions`, the session left longest makes room; with a page on every one, a new one is refused.
    @Test func theStudioHoldsAtMostItsSessionsAndSaysSoWhenFull() throws {
        let backend = FakeBackend()
        let studio = Studio(backend: backend, store: try SQLiteNotebookStore(),
                            bundled: try BundledNotebooks(notebooks: ["depth-threshold": StudioFixture.notebook]),
                            hub: SessionHub(pool: RenderPool(width: 2), photos: PhotoCache(byteLimit: 1 << 30) { try backend.loadPhoto($0) },
                                            gracePeriod: .seconds(60), maxSessions: 3),
                            exportsDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("exports-\(UUID().uuidString)").path,
                            version: "test")
        let clients = try (1...3).map { try opened(studio, id: UInt64($0)) }
        let refused = try #require(TestClient(studio: studio, id: 9).request(["type": "hello", "protocol": 1]))
        #expect(refused.errorCode == "too_large", "\(refused)")
        studio.disconnected(clients[1].connection)
        studio.disconnected(clients[0].connection)
        let admitted = try #require(TestClient(studio: studio, id: 10).request(["type": "hello", "protocol": 1]))
        #expect(admitted.ok && studio.hub.count == 3)
        // The one left first (clients[1]) made room; clients[0]'s session is still there to resume.
        #expect(clients[2].request(["type": "listNotebooks"])?.ok == true)
    }

    /// A session that never opened a notebook has nothing to come back to: it goes after ten seconds, not the
    /// whole grace period.
    @Test func anEmptySessionIsSweptEarly() throws {
        let studio = try StudioFixture.studio(grace: .seconds(120))
        let empty = TestClient(studio: studio, id: 1)
        _ = empty.request(["type": "hello", "protocol": 1])
        let used = try opened(studio, id: 2)
        studio.disconnected(empty.connection)
        studio.disconnected(used.connection)
        #expect(studio.hub.sweep(now: .now + .seconds(5)) == 0)
        #expect(studio.hub.sweep(now: .now + .seconds(11)) == 1)
        #expect(studio.hub.count == 1)
    }

    @Test func anExpiredSessionIsGone() throws {
        let studio = try StudioFixture.studio(grace: .zero)
        let (first, session, resume) = try openedWithSession(studio, id: 1)
        studio.disconnected(first.connection)
        #expect(studio.hub.sweep(now: .now + .seconds(1)) == 1)
        let second = TestClient(studio: studio, id: 2)
        let hello = try #require(second.request(["type": "hello", "protocol": 1, "session": .string(session), "resume": .string(resume)]))
        #expect(hello.result["resumed"] == false)
        #expect(hello.result["session"] != .string(session))
    }

    @Test func saveSharesAnImmutableVersionAndEditingForks() throws {
        let studio = try StudioFixture.studio()
        let editor = try opened(studio)
        let saved = try #require(editor.request(["type": "save"]))
        guard case .string(let id) = saved.result["shared"] else {
            Issue.record("no shared id: \(saved)")
            return
        }
        #expect(saved.result["url"] == .string("/n/\(id)"))
        _ = editor.request(["type": "setParams", "cell": "mask", "params": ["percentile": 90], "seq": 1])
        let resaved = try #require(editor.request(["type": "save"]))
        #expect(resaved.result["shared"] != .string(id), "an edited notebook saves as a new version")

        let other = TestClient(studio: studio, id: 9)
        _ = other.request(["type": "hello", "protocol": 1])
        let reopened = try #require(other.request(["type": "openNotebook", "shared": .string(id)]))
        #expect(reopened.result["shared"] == .string(id))
        guard case .object(let notebook) = reopened.result["notebook"], case .array(let cells) = notebook["cells"],
              case .object(let mask) = cells[2], case .object(let params) = mask["params"] else {
            Issue.record("bad notebook")
            return
        }
        #expect(params["percentile"] == .number(60), "the shared version is the one saved, not the later edit")
        #expect(other.request(["type": "openNotebook", "shared": "0123456789abcdef0123"])?.errorCode == "not_found")
    }

    @Test func histogramExportAndCatalog() throws {
        let studio = try StudioFixture.studio()
        let client = try opened(studio)
        let histogram = try #require(client.request(["type": "histogram", "cell": "photo.disparity", "bins": 4]))
        #expect(histogram.result["bins"] == .array([1, 1, 1, 1]))
        #expect(histogram.result["marker"] == .null)
        // A formula checked as typed: its slider, what it makes and reads; refused, where and why.
        let checked = try #require(client.request(["type": "checkFormula", "formula": "image * $gain(0..2 = 1)"]))
        #expect(checked.result["ok"] == true && checked.result["output"] == "image" && checked.result["references"] == .array(["photo.image"]))
        #expect(checked.result["sliders"] == .array([.object(["name": "gain", "min": 0, "max": 2, "default": 1, "step": 0.01, "position": 8])]))
        let refused = try #require(client.request(["type": "checkFormula", "formula": "image * "]))
        guard case .object(let problem)? = refused.result["error"] else { Issue.record("no error in \(refused.result)"); return }
        #expect(refused.result["ok"] == false && problem["position"] == 8 && refused.result["sliders"] == nil)
        let id = client.send(["type": "export", "cell": "mask", "format": "png"])
        var fractions: [Double] = []
        var reply: [String: JSONValue]?
        while let message = client.next() {
            guard case .json(let o) = message else { continue }
            if o["event"] == "progress", case .number(let f) = o["fraction"] { fractions.append(f) }
            if o["id"] == .number(Double(id)) { reply = o; break }
        }
        #expect(fractions == [0, 0.5, 1])
        guard case .string(let url) = reply?.result["url"] else {
            Issue.record("no export url: \(String(describing: reply))")
            return
        }
        #expect(url.hasPrefix("/exports/depth-threshold-mask-") && url.hasSuffix(".png"))
        #expect(client.request(["type": "effects"])?.result["effects"] == .array([.object(["id": "depthThreshold"])]))
    }

    @Test func malformedMessagesGetRepliesAndTheSessionLivesOn() throws {
        let studio = try StudioFixture.studio()
        let client = try opened(studio)
        studio.receive(text: Array("{not json".utf8), from: client.connection)
        studio.receive(binary: [0, 1, 2, 3], from: client.connection)
        studio.receiveOversized(bytes: 5 << 20, from: client.connection)
        var codes: [String] = []
        while codes.count < 3, let message = client.next() {
            if case .json(let o) = message, let code = o.errorCode { codes.append(code) }
        }
        #expect(codes == ["bad_request", "bad_request", "too_large"])
        #expect(client.request(["type": "listNotebooks"])?.ok == true)
    }
}
