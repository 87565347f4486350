/// Bounds on what a decoder accepts, checked before any large allocation.
///
/// Uploads are untrusted: a header can claim 60000×60000 pixels in a few bytes. Every decoder checks the
/// declared size against these limits before it asks a library to allocate the pixels.
public struct DecodeLimits: Sendable, Equatable {
    /// The most pixels the image itself may have.
    public var maxPixels: Int
    /// The most pixels a plane beside it (depth map, matte) may have: phones store these at a quarter of the
    /// image's pixels or less, so a larger one is a bomb, not a photo.
    public var maxAuxiliaryPixels: Int
    /// The most bytes a file may have.
    public var maxBytes: Int
    /// The most bytes of metadata (XMP with its extension, ICC) a file may declare: Google's depth rides in
    /// extended XMP as base64, a few megabytes at most.
    public var maxMetadataBytes: Int

    public init(maxPixels: Int, maxAuxiliaryPixels: Int? = nil, maxBytes: Int, maxMetadataBytes: Int = 32 << 20) {
        self.maxPixels = maxPixels
        self.maxAuxiliaryPixels = maxAuxiliaryPixels ?? maxPixels
        self.maxBytes = maxBytes
        self.maxMetadataBytes = maxMetadataBytes
    }

    /// 50-megapixel images with 16-megapixel depth maps and mattes, 200 MB files: above any phone photo
    /// (12 and 48 MP sensors, mattes at half the image's side), below what would exhaust a small server.
    public static let `default` = DecodeLimits(maxPixels: 50_000_000, maxAuxiliaryPixels: 16_000_000, maxBytes: 200 * 1024 * 1024)

    /// The limits for a plane beside the image: its pixel limit is the auxiliary one.
    public var auxiliary: DecodeLimits {
        DecodeLimits(maxPixels: maxAuxiliaryPixels, maxAuxiliaryPixels: maxAuxiliaryPixels, maxBytes: maxBytes,
                     maxMetadataBytes: maxMetadataBytes)
    }

    /// Throws `PhotoError.tooLarge` when a `width` × `height` plane exceeds the pixel limit or is degenerate.
    func check(width: Int, height: Int, what: String) throws {
        guard width > 0, height > 0 else { throw PhotoError.corrupt("\(what) has no pixels (\(width)×\(height))") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw PhotoError.tooLarge("\(what) is \(width)×\(height) pixels; the limit is \(Self.megapixels(maxPixels)) megapixels")
        }
    }

    private static func megapixels(_ pixels: Int) -> String {
        pixels % 1_000_000 == 0 ? "\(pixels / 1_000_000)" : String(format: "%.1f", Double(pixels) / 1e6)
    }

    /// Throws `PhotoError.tooLarge` when metadata declares more than `maxMetadataBytes`.
    func check(metadataBytes count: Int, what: String) throws {
        if count > maxMetadataBytes {
            throw PhotoError.tooLarge("\(what) declares \(count) bytes; the limit is \(maxMetadataBytes >> 20) MB")
        }
    }

    /// Throws `PhotoError.tooLarge` when a file of `count` bytes exceeds the byte limit.
    func check(byteCount count: Int) throws {
        if count > maxBytes {
            throw PhotoError.tooLarge("the file has \(count) bytes; the limit is \(maxBytes / (1024 * 1024)) MB")
        }
    }
}
