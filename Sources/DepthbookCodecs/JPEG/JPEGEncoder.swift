import CTurboJPEG
import DepthbookEngine

/// Encodes 8-bit RGB (or grey) to baseline JPEG with libjpeg-turbo: the format of every preview frame.
///
/// Speed: handles and their `tjAlloc` output buffers are pooled and reused (`TJFLAG_NOREALLOC`), so the
/// only per-call allocation is the returned array. Chroma is 4:2:0, the fastest subsampling.
public enum JPEGEncoder {
    /// Encodes an RGB image. `quality` is clamped to 1...100.
    public static func encode(_ image: RGBImage8, quality: Int = 85) throws -> [UInt8] {
        guard image.channels == 3 else { throw PhotoError.encodingFailed("JPEG encoding needs 3-channel RGB, got \(image.channels) channels") }
        return try image.samples.withUnsafeBufferPointer { buf in
            try encode(rgb: buf, width: image.width, height: image.height, quality: quality)
        }
    }

    /// Encodes `width` × `height` tightly packed RGB samples.
    public static func encode(rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, quality: Int = 85) throws -> [UInt8] {
        try compress(rgb, width: width, height: height, channels: 3, quality: quality)
    }

    /// Encodes a single-channel 8-bit plane as a greyscale JPEG (depth and mattes in written files).
    static func encodeGray(_ plane: Raster<UInt8>, quality: Int) throws -> [UInt8] {
        guard plane.channels == 1 else { throw PhotoError.encodingFailed("grey JPEG encoding needs one channel") }
        return try plane.samples.withUnsafeBufferPointer { buf in
            try compress(buf, width: plane.width, height: plane.height, channels: 1, quality: quality)
        }
    }

    private static func compress(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int, quality: Int) throws -> [UInt8] {
        guard width > 0, height > 0, width <= 65_500, height <= 65_500 else {
            throw PhotoError.encodingFailed("a JPEG must be 1...65500 pixels on each side, not \(width)×\(height)")
        }
        guard pixels.count >= width * height * channels, let base = pixels.baseAddress else {
            throw PhotoError.encodingFailed("the pixel buffer holds \(pixels.count) samples, fewer than \(width)×\(height)×\(channels)")
        }
        let subsampling = channels == 1 ? TJSAMP_GRAY : TJSAMP_420
        let format = channels == 1 ? TJPF_GRAY : TJPF_RGB
        let q = Int32(min(max(quality, 1), 100))
        return try TurboJPEGHandlePool.compressors.withHandle { h in
            let needed = tjBufSize(Int32(width), Int32(height), Int32(subsampling.rawValue))
            if h.outputCapacity < needed {
                if let old = h.outputBuffer { tjFree(old) }
                h.outputBuffer = tjAlloc(Int32(clamping: needed))
                h.outputCapacity = h.outputBuffer == nil ? 0 : needed
            }
            guard h.outputBuffer != nil else { throw PhotoError.encodingFailed("out of memory for a \(width)×\(height) JPEG") }
            var out = h.outputBuffer
            var size: UInt = h.outputCapacity
            let rc = tjCompress2(h.raw, base, Int32(width), 0, Int32(height), Int32(format.rawValue), &out, &size,
                                 Int32(subsampling.rawValue), q, TJFLAG_NOREALLOC)
            guard rc == 0, let written = out else { throw PhotoError.encodingFailed("libjpeg-turbo: \(h.lastError)") }
            return Array(UnsafeBufferPointer(start: written, count: Int(size)))
        }
    }
}
