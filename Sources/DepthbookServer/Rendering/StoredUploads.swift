import DepthbookCodecs
import DepthbookEffects
import DepthbookEngine
import DepthbookProtocol

/// Uploaded pictures as effects ask for them (Backdrop's own background), read from the upload folder. A
/// pair upload (image + depth map) names a photo, not a picture, and is refused here.
public struct StoredUploads: UploadedImages {
    let store: UploadStore

    public init(store: UploadStore) {
        self.store = store
    }

    public func image(upload id: String) throws -> RGBImage8 {
        guard let path = store.path(of: id) else {
            throw ProtocolError.notFound("there is no uploaded picture \"\(id.prefix(12))…\" here; upload it again")
        }
        return try PhotoReader.read(contentsOf: path).image
    }
}
