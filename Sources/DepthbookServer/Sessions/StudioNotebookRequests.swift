import DepthbookDocument
import DepthbookEffects
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The requests that change which notebook and photo a session shows, and saving it: each loads what it
/// needs first, then applies one edit of the session's state (`SessionEdits`) and tells watchers.
extension Studio {
    func openNotebook(_ open: StudioRequest.OpenNotebook, _ session: Session) throws -> OpenNotebookResult {
        let notebook: CheckedNotebook, shared: String?
        if let name = open.name {
            if let found = bundled.notebook(named: name) {
                (notebook, shared) = (found, nil)
            } else if NotebookIdentity.isSavedID(name), let saved = try store.load(id: name) {
                // `/n/<id>` hands the page one string; a saved id works in `name` too.
                (notebook, shared) = (try Self.checked(saved), saved.id)
            } else {
                throw ProtocolError.notFound("no bundled notebook \"\(name)\"")
            }
        } else if let id = open.shared, NotebookIdentity.isSavedID(id), let saved = try store.load(id: id) {
            (notebook, shared) = (try Self.checked(saved), saved.id)
        } else {
            throw ProtocolError.notFound("no saved notebook \"\(open.shared ?? "")\"")
        }
        let photo = try loadPhoto(notebook.notebook.photo)
        session.open(notebook, shared: shared, photo: OpenPhoto(photo))
        session.broadcast(only: .watch) {
            StudioEvent.notebook(.init(notebook: notebook.notebook, graph: notebook.graph, photo: photo.facts)).message()
        }
        return OpenNotebookResult(notebook: notebook.notebook, graph: notebook.graph, photo: photo.facts, shared: shared)
    }

    /// A saved notebook is checked as it comes back in: it was written by this or an older Depthbook, whose
    /// catalog may have had other effects or ranges.
    private static func checked(_ saved: SavedNotebook) throws -> CheckedNotebook {
        do {
            return try NotebookValidator().check(saved.notebook)
        } catch {
            throw ProtocolError(.internal, "the saved notebook \(saved.id) no longer opens: \(RequestDecoder.describe(error))")
        }
    }

    func openPhoto(_ reference: PhotoReference, _ session: Session) throws -> PhotoResult {
        let photo = try loadPhoto(reference)
        let notebook = session.change(to: OpenPhoto(photo))
        session.broadcast(only: .watch) {
            StudioEvent.notebook(.init(notebook: notebook?.notebook, graph: notebook?.graph, photo: photo.facts)).message()
        }
        return PhotoResult(photo: photo.facts)
    }

    /// Everything is checked and the photo loaded before the session changes: a refused notebook leaves the
    /// session exactly as it was.
    func setNotebook(_ notebook: Notebook, _ session: Session, from connection: ClientConnection) throws -> NotebookResult {
        let checked: CheckedNotebook
        do {
            checked = try NotebookValidator().check(notebook)
        } catch {
            throw ProtocolError.badRequest("setNotebook: \(RequestDecoder.describe(error))")
        }
        guard let current = session.shown.notebook else { throw ProtocolError.badRequest("open a notebook before replacing it") }
        let photo = current.notebook.photo != notebook.photo ? try loadPhoto(notebook.photo) : nil
        session.replace(with: checked, photo: photo.map(OpenPhoto.init))
        // The notebook as checked: a link's members brought in step are what the page and the watchers hold.
        session.broadcast(only: .watch) { StudioEvent.notebook(.init(notebook: checked.notebook, graph: checked.graph)).message() }
        return NotebookResult(notebook: checked.notebook, graph: checked.graph)
    }

    /// Saves the notebook as it is now. The store is written off the connection's queue, so a request behind the
    /// save (a list, a slider) is not held up by a slow or unreachable database; the reply comes when it is done.
    func save(_ session: Session, reply: @escaping @Sendable (Result<SaveResult, ProtocolError>) -> Void) {
        let shown = session.shown
        guard let notebook = shown.notebook?.notebook else {
            reply(.failure(.badRequest("open a notebook before saving")))
            return
        }
        // Unchanged since it was opened or saved: it is that version already.
        if let shared = shown.shared { return reply(.success(SaveResult(shared: shared, url: "/n/\(shared)"))) }
        storeWrites.async { [store] in
            reply(Result {
                let id = try store.save(notebook, parent: shown.parent)
                // Marks the session saved only if it still shows what was saved (an edit may have come in meanwhile).
                session.saved(notebook, as: id)
                return SaveResult(shared: id, url: "/n/\(id)")
            }.mapError(Self.protocolError))
        }
    }

    func loadPhoto(_ reference: PhotoReference) throws -> LoadedPhoto {
        if case .path = reference {
            throw ProtocolError.forbidden("photos given by path are for the command line; upload the file instead")
        }
        // Opening needs the photo's facts and size, which any kept copy has: no second decode for a photo whose
        // whole image was let go for room.
        return try hub.photos.photo(reference, for: .any)
    }
}
