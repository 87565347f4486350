import DepthbookEffects
import DepthbookEngine
import Foundation

/// The studio's real backend: samples and effects from DepthbookEffects, files through DepthbookCodecs.
public struct EffectsBackend: StudioBackend {
    let uploads: UploadStore

    public init(dataDirectory: String) throws {
        uploads = try UploadStore(directory: dataDirectory + "/uploads")
    }

    public func effectCatalog() -> JSONValue {
        .array([])
    }

    public func samples() throws -> [SampleSummary] {
        SampleLibrary.all.map { SampleSummary(id: $0.id, title: $0.title, width: $0.width, height: $0.height, planes: $0.planes) }
    }

    public func loadPhoto(_ reference: PhotoReference) throws -> LoadedPhoto {
        switch reference {
        case .sample(let id):
            let photo = try SampleLibrary.photo(id: id)
            return LoadedPhoto(reference: reference, photo: photo, facts: PhotoFacts.json(photo, source: reference))
        case .upload(let id):
            guard uploads.lookup(id) != nil else { throw ProtocolError.notFound("no uploaded photo \"\(id)\"") }
            throw ProtocolError(.unsupported, "reading uploaded photos needs the codecs (PhotoReader), not in this build yet")
        case .path:
            throw ProtocolError.forbidden("photos given by path are for the command line")
        }
    }

    public func inspectUpload(_ bytes: [UInt8], fileExtension: String, depthMap: [UInt8]?) throws -> Photo {
        throw ProtocolError(.unsupported, "reading uploaded photos needs the codecs (PhotoReader), not in this build yet")
    }

    public func makeRenderer(for photo: LoadedPhoto) -> any PhotoRenderer {
        PendingRenderer()
    }
}

/// Until the effects' NotebookRenderer lands every render reports that it is missing.
final class PendingRenderer: PhotoRenderer {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "rendering needs DepthbookEffects' NotebookRenderer, not in this build yet" }
    }
    func render(notebook: Notebook, cell: String, target: FrameTarget, isCancelled: @escaping @Sendable () -> Bool) throws -> RenderedFrame { throw Missing() }
    func histogram(notebook: Notebook, reference: String, bins: Int) throws -> HistogramResult { throw Missing() }
    func export(notebook: Notebook, cell: String, format: ExportFormat, progress: @escaping @Sendable (Double) -> Void) throws -> ExportedFile { throw Missing() }
}
