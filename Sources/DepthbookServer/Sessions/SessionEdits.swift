import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol

/// The changes a page makes to its session, as plain edits of `Session.State`: no locks, no sockets, no
/// files. `Studio` loads what they need (a notebook, a photo) and the session runs each as one step of its
/// executor (SessionExecutor.swift); each refuses before it changes anything, so a refused request leaves the
/// session as it was. Those that ask for renders return them as actions, carried out after the step.
extension Session.State {
    /// The editor's key checked (in time that does not depend on where they differ) and replaced: the new key,
    /// or nil when `key` is not the session's.
    mutating func resume(withKey key: String) -> String? {
        let a = Array(key.utf8), b = Array(resumeKey.utf8)
        guard a.count == b.count, zip(a, b).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        resumeKey = RandomID.make()
        return resumeKey
    }

    /// The photo or the notebook's structure changed: what was rendering stops, and the frames kept for a page
    /// that attaches later go (they show what is no longer there).
    mutating func invalidateRenders() -> SessionStep<Void> {
        lastFrames.removeAll()
        return SessionStep(reply: (), actions: carryOut(scheduler.cancelAll()))
    }

    /// A notebook opened (bundled, or saved as `shared`) on its photo: every cell's preview starts anew.
    mutating func open(_ notebook: CheckedNotebook, shared: String?, photo: OpenPhoto) {
        self.notebook = notebook
        self.shared = shared
        parent = shared
        self.photo = photo
        previewWidths = [:]
    }

    /// Another photo under the same recipe; the notebook names it from now on (an edit: no longer the saved
    /// version). Returns the notebook as it now is, if one is open.
    mutating func change(to photo: OpenPhoto) -> CheckedNotebook? {
        self.photo = photo
        if let open = notebook, open.notebook.photo != photo.reference {
            notebook = open.onPhoto(photo.reference)
            shared = nil
        }
        return notebook
    }

    /// The whole notebook replaced (an undo, a cell added); `photo` when it names another photo.
    mutating func replace(with notebook: CheckedNotebook, photo: OpenPhoto?) {
        if self.notebook != notebook { shared = nil }
        self.notebook = notebook
        if let photo { self.photo = photo }
    }

    /// One step cell's parameters changed: checked against its effect, merged, and its renders asked of the
    /// scheduler (the cell first, then the cells a link moved with it and every cell below that reads any of them
    /// and has a preview), all under `set.seq`, in this one edit. The sequence number is checked once, by the
    /// scheduler as the cell's own render is asked for, before the notebook changes; a cell below whose preview
    /// a newer request already asked for is left to it. Returns the renders asked for and what the session is to
    /// do (start them, cancel the ones they replace).
    /// While a slider moves, cells the page has scrolled away (`offscreen`) wait for the drag's last change, which
    /// renders them after every frame in view.
    mutating func apply(_ set: StudioRequest.SetParams) throws -> SessionStep<(requests: [FrameRequest], notebook: CheckedNotebook?)> {
        guard let open = notebook else { throw ProtocolError.badRequest("open a notebook first") }
        guard open.notebook.cell(set.cell) != nil else {
            throw ProtocolError.notFound("no cell \"\(set.cell)\" in the notebook")
        }
        let changed: CheckedNotebook
        do {
            // A step's parameters against its effect's table, a formula's against the sliders its line declares.
            changed = try open.setting(set.params, unset: set.unset ?? [], of: set.cell)
        } catch {
            throw ProtocolError(.badRequest, "cell \"\(set.cell)\": \(error)", cell: set.cell, parameter: error.parameterName)
        }
        let interactive = set.interactive ?? false
        var requests = [FrameRequest(slot: RenderSlot(cell: set.cell, kind: .preview), seq: set.seq,
                                     target: .preview(width: previewWidths[set.cell] ?? Limits.studio.defaultPreviewWidth), interactive: interactive)]
        let offscreen = Set(set.offscreen ?? [])
        // Cells a link moved with it, then everything below any of them, each once in notebook order; those
        // scrolled away wait while the slider moves, and as it rests go last, after everyone's frames in view.
        let linked = changed.cellsLinked(to: set.cell, names: Array(set.params.keys) + (set.unset ?? []))
        let moved = Set([set.cell] + linked)
        let below = Set(moved.flatMap { changed.dependents(of: $0) }).union(linked).subtracting([set.cell])
        let previewed = changed.notebook.cells.map(\.id).filter(below.contains).compactMap { cell in
            previewWidths[cell].map { FrameRequest(slot: RenderSlot(cell: cell, kind: .preview), seq: set.seq,
                                                   target: .preview(width: $0), interactive: interactive) }
        }
        requests += previewed.filter { !offscreen.contains($0.slot.cell) }
        if !interactive {
            requests += previewed.filter { offscreen.contains($0.slot.cell) }.map { var unseen = $0; unseen.unseen = true; return unseen }
        }
        var actions: [RenderScheduler.Action]
        do {
            actions = try scheduler.request(requests[0])
        } catch {
            throw error.protocolError
        }
        if changed.notebook != open.notebook { shared = nil }
        notebook = changed
        for request in requests.dropFirst() {
            actions += (try? scheduler.request(request)) ?? []
        }
        return SessionStep(reply: (requests, changed), actions: carryOut(actions))
    }

    /// A preview asked for: the cell checked, its width remembered, its render asked of the scheduler (refused
    /// when its `seq` is stale, with nothing changed).
    mutating func preview(_ request: FrameRequest) throws -> SessionStep<Void> {
        try checkRenderable(request.slot.cell)
        let actions = try schedule(request)
        previewWidths[request.slot.cell] = request.target.width
        return SessionStep(reply: (), actions: actions)
    }

    /// A full-resolution crop asked for: checked to lie inside the photo, its render asked of the scheduler.
    mutating func crop(_ request: FrameRequest) throws -> SessionStep<Void> {
        guard let region = request.target.region else { throw ProtocolError.badRequest("a crop needs a rectangle") }
        try willCrop(request.slot.cell, x: region.x, y: region.y, width: region.width, height: region.height)
        return SessionStep(reply: (), actions: try schedule(request))
    }

    private mutating func schedule(_ request: FrameRequest) throws -> [SessionAction] {
        do {
            return carryOut(try scheduler.request(request))
        } catch {
            throw error.protocolError
        }
    }

    /// A crop of `cell`, which must lie inside the photo.
    func willCrop(_ cell: String, x: Int, y: Int, width: Int, height: Int) throws {
        try checkRenderable(cell)
        // Compared as `x > photo width − width`, which cannot overflow for any x the decoder lets through.
        if let photo, x > photo.width - width || y > photo.height - height {
            throw ProtocolError.badRequest("the crop must lie inside the \(photo.width)×\(photo.height) image")
        }
    }

    private func checkRenderable(_ cell: String) throws {
        guard let notebook else { throw ProtocolError.badRequest("open a notebook first") }
        if PhotoReferences.all.contains(cell) { return }
        guard let found = notebook.notebook.cell(cell) else { throw ProtocolError.notFound("no cell or photo plane \"\(cell)\" in the notebook") }
        guard found.kind.rendersImage else {
            throw ProtocolError.badRequest("cell \"\(cell)\" is a \(found.kindName) cell and has no image")
        }
    }

    /// `notebook` was saved as `id`: the session is that version unless it changed while saving.
    mutating func saved(_ notebook: Notebook, as id: String) {
        guard self.notebook?.notebook == notebook else { return }
        shared = id
        parent = id
    }

}

/// What a session remembers of its photo: enough to answer and check requests without the decoded planes.
struct OpenPhoto: Sendable {
    var reference: PhotoReference
    var facts: JSONValue
    var width: Int
    var height: Int

    init(_ loaded: LoadedPhoto) {
        reference = loaded.reference
        facts = loaded.facts
        width = loaded.photo.width
        height = loaded.photo.height
    }
}
