import CTurboJPEG
import DepthbookEngine

/// Decodes JPEG streams with libjpeg-turbo into RGB or grey samples.
enum TurboJPEGDecoder {
    /// Width and height the stream's header declares.
    static func size(of jpeg: ArraySlice<UInt8>) throws -> (width: Int, height: Int) {
        try TurboJPEGHandlePool.decompressors.withHandle { h in
            try header(h, jpeg)
        }
    }

    private static func header(_ h: TurboJPEGHandle, _ jpeg: ArraySlice<UInt8>) throws -> (width: Int, height: Int) {
        var w: Int32 = 0, ht: Int32 = 0, subsamp: Int32 = 0, colorspace: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { buf in
            tjDecompressHeader3(h.raw, buf.baseAddress, UInt(buf.count), &w, &ht, &subsamp, &colorspace)
        }
        guard rc == 0 else { throw classify(h.lastError) }
        return (Int(w), Int(ht))
    }

    /// Decodes to interleaved 8-bit RGB (3 channels) or grey (1 channel).
    static func decode(_ jpeg: ArraySlice<UInt8>, gray: Bool, limits: DecodeLimits, what: String) throws -> Raster<UInt8> {
        try TurboJPEGHandlePool.decompressors.withHandle { h in
            let (w, ht) = try header(h, jpeg)
            try limits.check(width: w, height: ht, what: what)
            let channels = gray ? 1 : 3
            let format = gray ? TJPF_GRAY : TJPF_RGB
            var failure: PhotoError?
            let samples = [UInt8](unsafeUninitializedCapacity: w * ht * channels) { out, count in
                let rc = jpeg.withUnsafeBufferPointer { buf in
                    tjDecompress2(h.raw, buf.baseAddress, UInt(buf.count), out.baseAddress, Int32(w), 0, Int32(ht),
                                  Int32(format.rawValue), 0)
                }
                if rc != 0 {
                    h.needsDiscarding = true
                    let message = h.lastError
                    // libjpeg warns about many harmless oddities; a stream that stops early is not one of them.
                    if !h.lastErrorIsWarning || message.contains("Premature end") {
                        failure = classify(message)
                    }
                }
                count = w * ht * channels
            }
            if let failure { throw failure }
            return Raster(width: w, height: ht, channels: channels, samples: samples)
        }
    }

    /// Turns libjpeg's message into the matching `PhotoError`.
    static func classify(_ message: String) -> PhotoError {
        if message.contains("Premature end") || message.contains("Empty input") || message.contains("too small") {
            return .truncated("the JPEG data stops early (\(message))")
        }
        if message.contains("Not a JPEG") { return .unsupportedFormat("the data is not a JPEG (\(message))") }
        if message.contains("Unsupported color conversion") || message.contains("Unsupported JPEG process") {
            return .unsupportedFormat("this kind of JPEG (\(message))")
        }
        return .corrupt("the JPEG data cannot be decoded (\(message))")
    }
}
