import DepthbookEngine

/// Where a renderer finds images the user uploaded (Backdrop's own background). The studio reads its upload
/// folder; the command line a folder it is given. Effects never do I/O themselves: they ask this.
public protocol UploadedImages: Sendable {
    /// The decoded picture of the upload `id` (its content hash). Throws a message a user understands when
    /// there is no such upload or it is not a picture.
    func image(upload id: String) throws -> RGBImage8
}
