import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import Foundation

/// `POST /api/upload`: sniff the format, decode the whole photo, and only then store it, so a corrupt file
/// gets a clear error and leaves nothing behind.
public struct UploadHandler: Sendable {
    let store: UploadStore
    let backend: any StudioBackend
    public let limitBytes: Int
    /// Given each upload, decoded and made ready, once it is stored (the studio keeps it for the page that opens it).
    let decoded: @Sendable (LoadedPhoto) -> Void

    public init(store: UploadStore, backend: any StudioBackend, limitBytes: Int,
                decoded: @escaping @Sendable (LoadedPhoto) -> Void = { _ in }) {
        self.store = store
        self.backend = backend
        self.limitBytes = limitBytes
        self.decoded = decoded
    }

    struct Uploaded: Encodable {
        var upload: String
        var photo: JSONValue
        /// The recipe an exported Depthbook file carries, when it carries one.
        var notebook: Notebook?
    }

    /// `brighter` (`nearer` or `farther`) says which way a depth map's grey runs; without it (or with `detect`)
    /// the reader decides from the map and the image.
    public func upload(_ body: [UInt8], depthFor: String?, brighter: String? = nil) -> HTTPResponse {
        let response = answer(body, depthFor: depthFor, brighter: brighter)
        if response.status != 200 { StudioMetrics.shared.uploadRefused() }
        return response
    }

    private func answer(_ body: [UInt8], depthFor: String?, brighter: String?) -> HTTPResponse {
        let polarity = brighter.map { DepthMapPolarity(rawValue: $0) } ?? .detect
        guard let polarity else {
            return .jsonError(400, "brighter must be \"nearer\", \"farther\" or \"detect\" (which way the depth map's grey runs), "
                + "not \"\(brighter ?? "")\"")
        }
        guard body.count <= limitBytes else {
            return .jsonError(413, "the file is \(body.count) bytes; uploads are at most \(limitBytes) bytes")
        }
        guard !body.isEmpty else { return .jsonError(400, "the upload is empty: send the file as the request body") }
        guard let fileExtension = Self.fileExtension(of: body) else {
            return .jsonError(400, "this is not a HEIC, JPEG or PNG file (the server looks at the bytes, not the name)")
        }
        do {
            if let imageID = depthFor {
                return try attachDepth(body, fileExtension: fileExtension, to: imageID, polarity: polarity)
            }
            let photo = try backend.inspectUpload(body, fileExtension: fileExtension, depthMap: nil, polarity: .brighterIsNearer)
            let id = try store.store(body, fileExtension: fileExtension)
            let loaded = backend.prepare(photo, as: .upload(id))
            decoded(loaded)
            return .json(200, Uploaded(upload: id, photo: loaded.facts, notebook: RecipeFromXMP.notebook(in: photo.xmp)))
        } catch let error as AtomicFile.WriteError {
            return .jsonError(500, "the upload could not be stored: \(error.reason)")
        } catch {
            StudioMetrics.shared.decodeFailed()
            return .jsonError(400, "the \(fileExtension.uppercased()) file could not be read: \(error)")
        }
    }

    /// The stored file's extension for the format the first bytes show; the client's Content-Type is ignored.
    static func fileExtension(of bytes: [UInt8]) -> String? {
        switch PhotoReader.sniff(bytes[...]) {
        case .jpeg: return "jpg"
        case .heif: return "heic"
        case .png: return "png"
        case nil: return nil
        }
    }

    private func attachDepth(_ depth: [UInt8], fileExtension: String, to imageID: String, polarity: DepthMapPolarity) throws -> HTTPResponse {
        guard let imagePath = store.path(of: imageID), let image = FileManager.default.contents(atPath: imagePath) else {
            return .jsonError(400, "depthFor names no uploaded image: upload the image first, then its depth map")
        }
        let imageExtension = (imagePath as NSString).pathExtension
        let photo = try backend.inspectUpload(Array(image), fileExtension: imageExtension, depthMap: depth, polarity: polarity)
        let depthID = try store.store(depth, fileExtension: fileExtension)
        let pairID = try store.storePair(image: imageID, depth: depthID, polarity: polarity)
        let loaded = backend.prepare(photo, as: .upload(pairID))
        decoded(loaded)
        return .json(200, Uploaded(upload: pairID, photo: loaded.facts, notebook: nil))
    }
}
