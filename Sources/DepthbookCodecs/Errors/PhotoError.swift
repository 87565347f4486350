/// Everything that can go wrong reading or writing a photo, with a message a user can act on.
///
/// Every decoder funnels its failures into this one type, so the server and the command line can show
/// `description` as is and never crash on hostile input.
public enum PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file has no bytes at all.
    case empty
    /// The bytes are not a format Depthbook reads (the first bytes told us what it is not).
    case unsupportedFormat(String)
    /// The file ends before its structure says it should.
    case truncated(String)
    /// The file's structure is broken (bad box, bad marker, bad compressed data).
    case corrupt(String)
    /// The image is larger than the configured limit.
    case tooLarge(String)
    /// Metadata (XMP, EXIF, MPF) is present but unusable.
    case badMetadata(String)
    /// A depth map exists but has no valid pixel.
    case depthAllHoles
    /// A separate depth map file does not fit its image.
    case depthMismatch(String)
    /// The file could not be read from disk.
    case unreadable(path: String, reason: String)
    /// Encoding failed (a library refused the input).
    case encodingFailed(String)

    public var description: String {
        switch self {
        case .empty: return "The file is empty."
        case .unsupportedFormat(let what): return "Not a photo Depthbook can read: \(what). Use a HEIC, JPEG or PNG file."
        case .truncated(let what): return "The file is cut short (\(what)); it may not have finished downloading."
        case .corrupt(let what): return "The file is damaged: \(what)."
        case .tooLarge(let what): return "The photo is too large: \(what)."
        case .badMetadata(let what): return "The photo's metadata is unusable: \(what)."
        case .depthAllHoles: return "The depth map has no valid pixel (every pixel is a hole)."
        case .depthMismatch(let what): return "The depth map does not fit the image: \(what)."
        case .unreadable(let path, let reason): return "Cannot read \(path): \(reason)."
        case .encodingFailed(let what): return "Could not write the photo: \(what)."
        }
    }
}
