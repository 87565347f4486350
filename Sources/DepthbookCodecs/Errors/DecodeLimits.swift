/// Bounds on what a decoder accepts, checked before any large allocation.
///
/// Uploads are untrusted: a header can claim 60000×60000 pixels in a few bytes. Every decoder checks the
/// declared size against these limits before it asks a library to allocate the pixels.
public struct DecodeLimits: Sendable, Equatable {
    /// The most pixels any one plane (image, depth, matte) may have.
    public var maxPixels: Int
    /// The most bytes a file may have.
    public var maxBytes: Int

    public init(maxPixels: Int, maxBytes: Int) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
    }

    /// 100 megapixels and 200 MB: above any phone photo, below what would exhaust a small server.
    public static let `default` = DecodeLimits(maxPixels: 100_000_000, maxBytes: 200 * 1024 * 1024)

    /// Throws `PhotoError.tooLarge` when a `width` × `height` plane exceeds the pixel limit or is degenerate.
    func check(width: Int, height: Int, what: String) throws {
        guard width > 0, height > 0 else { throw PhotoError.corrupt("\(what) has no pixels (\(width)×\(height))") }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw PhotoError.tooLarge("\(what) is \(width)×\(height) pixels; the limit is \(maxPixels / 1_000_000) megapixels")
        }
    }

    /// Throws `PhotoError.tooLarge` when a file of `count` bytes exceeds the byte limit.
    func check(byteCount count: Int) throws {
        if count > maxBytes {
            throw PhotoError.tooLarge("the file has \(count) bytes; the limit is \(maxBytes / (1024 * 1024)) MB")
        }
    }
}
