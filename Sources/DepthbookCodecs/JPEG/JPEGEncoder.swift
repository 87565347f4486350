import CTurboJPEG
import DepthbookEngine
import Dispatch

/// Encodes 8-bit RGB (or grey) to baseline JPEG with libjpeg-turbo: the format of every preview frame.
///
/// Speed: handles and their `tjAlloc` output buffers are pooled and reused (`TJFLAG_NOREALLOC`), so the
/// only per-call allocation is the returned array. Chroma is 4:2:0, the fastest subsampling.
///
/// With `threads` above 1, a tall enough image is cut into strips of whole MCU rows that are encoded at
/// once on that many cores and joined with restart markers (`RestartStripJoiner`): the same pixels when
/// decoded, in about half the time on two cores.
public enum JPEGEncoder {
    /// Encodes an RGB image, or a one-channel plane as a greyscale JPEG. `quality` is clamped to 1...100.
    public static func encode(_ image: Raster<UInt8>, quality: Int = 85, threads: Int = 1) throws -> [UInt8] {
        switch image.channels {
        case 3:
            return try image.samples.withUnsafeBufferPointer { buf in
                try encode(rgb: buf, width: image.width, height: image.height, quality: quality, threads: threads)
            }
        case 1:
            return try image.samples.withUnsafeBufferPointer { buf in
                guard let plan = StripPlan.forGrey(width: image.width, height: image.height, threads: threads),
                      buf.count >= image.width * image.height, let base = buf.baseAddress else {
                    return try compress(buf, width: image.width, height: image.height, channels: 1, quality: quality)
                }
                return try encodeStrips(base, plan: plan, channels: 1, quality: quality)
            }
        default:
            throw PhotoError.encodingFailed("JPEG encoding needs RGB or one grey channel, got \(image.channels) channels")
        }
    }

    /// Encodes `width` × `height` tightly packed RGB samples.
    public static func encode(rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, quality: Int = 85,
                              threads: Int = 1) throws -> [UInt8] {
        let plan = StripPlan.forRGB(width: width, height: height, threads: threads)
        guard let plan, rgb.count >= width * height * 3, let base = rgb.baseAddress else {
            return try compress(rgb, width: width, height: height, channels: 3, quality: quality)
        }
        return try encodeStrips(base, plan: plan, channels: 3, quality: quality)
    }

    /// Rows per strip and how many strips, for an image cut into `strips` pieces of whole MCU rows.
    struct StripPlan {
        let width: Int
        let height: Int
        let rowsPerStrip: Int
        let count: Int
        /// MCUs in one full strip: the restart interval.
        let restartInterval: Int

        /// The plan for 4:2:0 RGB on `threads` cores: twice as many strips as threads when the image is tall
        /// enough (strips of more detail take longer to encode; smaller pieces keep every core busy to the end),
        /// else one per thread. Nil for one thread or a short image.
        static func forRGB(width: Int, height: Int, threads: Int) -> StripPlan? {
            guard threads > 1 else { return nil }
            return StripPlan(width: width, height: height, mcuSize: 16, strips: 2 * threads)
                ?? StripPlan(width: width, height: height, mcuSize: 16, strips: threads)
        }

        /// The same for a grey plane, whose MCUs are 8 × 8.
        static func forGrey(width: Int, height: Int, threads: Int) -> StripPlan? {
            guard threads > 1 else { return nil }
            return StripPlan(width: width, height: height, mcuSize: 8, strips: 2 * threads)
                ?? StripPlan(width: width, height: height, mcuSize: 8, strips: threads)
        }

        /// Nil when one strip would do (one strip asked for, or an image under two MCU rows per strip).
        init?(width: Int, height: Int, mcuSize: Int, strips: Int) {
            guard strips > 1, width > 0, width <= 65_500, height <= 65_500 else { return nil }
            let mcuRows = (height + mcuSize - 1) / mcuSize, mcusPerRow = (width + mcuSize - 1) / mcuSize
            // At most 65535 MCUs between restarts (DRI has 16 bits), at least two MCU rows a strip.
            let rows = min((mcuRows + strips - 1) / strips, 65_535 / mcusPerRow)
            guard rows >= 2, mcuRows > rows else { return nil }
            self.width = width
            self.height = height
            rowsPerStrip = rows * mcuSize
            count = (mcuRows + rows - 1) / rows
            restartInterval = rows * mcusPerRow
        }
    }

    /// Encodes the strips of `plan` concurrently and joins them.
    private static func encodeStrips(_ pixels: UnsafePointer<UInt8>, plan: StripPlan, channels: Int, quality: Int) throws -> [UInt8] {
        let results = UnsafeMutableBufferPointer<Result<[UInt8], any Error>?>.allocate(capacity: plan.count)
        results.initialize(repeating: nil)
        defer { results.deinitialize(); results.deallocate() }
        let slots = UncheckedPointer(results.baseAddress!), source = UncheckedPointer(UnsafeMutablePointer(mutating: pixels))
        DispatchQueue.concurrentPerform(iterations: plan.count) { k in
            let top = k * plan.rowsPerStrip, rows = min(plan.rowsPerStrip, plan.height - top)
            let strip = UnsafeBufferPointer(start: source.pointer + top * plan.width * channels, count: rows * plan.width * channels)
            slots.pointer[k] = Result { try compress(strip, width: plan.width, height: rows, channels: channels, quality: quality) }
        }
        var joiner = RestartStripJoiner(restartInterval: plan.restartInterval)
        for k in 0..<plan.count { try joiner.append(try results[k]!.get()) }
        return try joiner.joined(height: plan.height)
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

/// A pointer handed to concurrent strip encoders, each touching its own slot or rows only.
private struct UncheckedPointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}
