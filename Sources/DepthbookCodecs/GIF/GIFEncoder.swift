import CGif
import DepthbookEngine

/// Writes animated GIFs with giflib: one global median-cut palette, a delay per frame, looping forever
/// (the NETSCAPE2.0 application extension). Used for the Wiggle loop.
public enum GIFEncoder {
    /// Encodes `frames` (all RGB, all the same size) with `delay` hundredths of a second per frame.
    /// `loops` = 0 repeats forever.
    public static func encode(frames: [RGBImage8], delayCentiseconds delay: Int = 8, loops: Int = 0) throws -> [UInt8] {
        guard let first = frames.first else { throw PhotoError.encodingFailed("a GIF needs at least one frame") }
        return try encode(count: frames.count, width: first.width, height: first.height, paletteFrom: frames,
                          delayCentiseconds: delay, loops: loops) { frames[$0] }
    }

    /// Encodes `count` frames made one at a time by `frame(k)` and let go once written, so a long loop at a large
    /// width never holds all its frames (120 frames of 2048 px are 1.1 GB as RGB). The one palette comes from
    /// `paletteFrom`, a few of the frames (a loop's frames share their colours).
    public static func encode(count: Int, width: Int, height: Int, paletteFrom samples: [RGBImage8],
                              delayCentiseconds delay: Int = 8, loops: Int = 0,
                              frame: (Int) throws -> RGBImage8) throws -> [UInt8] {
        guard count > 0, !samples.isEmpty else { throw PhotoError.encodingFailed("a GIF needs at least one frame") }
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw PhotoError.encodingFailed("GIF frames must be 1...65535 pixels wide and high, got \(width)×\(height)")
        }
        func checkSize(_ f: RGBImage8, _ i: Int) throws {
            guard f.width == width, f.height == height, f.channels == 3 else {
                throw PhotoError.encodingFailed("frame \(i) is \(f.width)×\(f.height)×\(f.channels), not \(width)×\(height) RGB")
            }
        }
        for (i, f) in samples.enumerated() { try checkSize(f, i) }
        guard (0...65535).contains(delay), (0...65535).contains(loops) else {
            throw PhotoError.encodingFailed("delay and loop count must be 0...65535")
        }
        var palette = GIFPalette(frames: samples)
        let sink = GIFByteSink()
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        var error: Int32 = 0
        guard let gif = EGifOpen(box.toOpaque(), gifWrite, &error) else { throw failure("opening the encoder", error) }
        var closed = false
        defer { if !closed { EGifCloseFile(gif, &error) } }
        EGifSetGifVersion(gif, true)

        // The global colour map must have a power-of-two size.
        var mapSize = 2
        while mapSize < palette.count { mapSize *= 2 }
        var entries = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: mapSize)
        for i in 0..<palette.count {
            entries[i] = GifColorType(Red: palette.colors[i * 3], Green: palette.colors[i * 3 + 1], Blue: palette.colors[i * 3 + 2])
        }
        guard let map = GifMakeMapObject(Int32(mapSize), entries) else { throw PhotoError.encodingFailed("GIF colour map") }
        defer { GifFreeMapObject(map) }
        var bits: Int32 = 1
        while (1 << bits) < mapSize { bits += 1 }
        try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), bits, 0, map), gif, "writing the screen descriptor")

        // Loop forever (or `loops` times): NETSCAPE2.0 application extension, first after the header.
        try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), gif, "writing the loop extension")
        let netscape = Array("NETSCAPE2.0".utf8)
        try check(EGifPutExtensionBlock(gif, Int32(netscape.count), netscape), gif, "writing the loop extension")
        let loopBlock: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
        try check(EGifPutExtensionBlock(gif, 3, loopBlock), gif, "writing the loop extension")
        try check(EGifPutExtensionTrailer(gif), gif, "writing the loop extension")

        var line = [GifPixelType](repeating: 0, count: width)
        for k in 0..<count {
            let frame = try frame(k)
            try checkSize(frame, k)
            var gcb = GraphicsControlBlock(DisposalMode: DISPOSE_DO_NOT, UserInputFlag: false,
                                           DelayTime: Int32(delay), TransparentColor: NO_TRANSPARENT_COLOR)
            var ext = [GifByteType](repeating: 0, count: 4)
            let n = EGifGCBToExtension(&gcb, &ext)
            try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(n), ext), gif, "writing a frame delay")
            try check(EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, nil), gif, "writing a frame header")
            for y in 0..<height {
                let row = y * width * 3
                for x in 0..<width {
                    line[x] = palette.index(frame.samples[row + x * 3], frame.samples[row + x * 3 + 1], frame.samples[row + x * 3 + 2])
                }
                try check(EGifPutLine(gif, &line, Int32(width)), gif, "writing frame pixels")
            }
        }
        closed = true
        guard EGifCloseFile(gif, &error) == GIF_OK else { throw failure("finishing the file", error) }
        return sink.bytes
    }

    static func check(_ status: Int32, _ gif: UnsafeMutablePointer<GifFileType>, _ what: String) throws {
        if status != GIF_OK { throw failure(what, gif.pointee.Error) }
    }

    static func failure(_ what: String, _ code: Int32) -> PhotoError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return .encodingFailed("GIF \(what): \(message)")
    }
}

/// Collects what giflib writes.
final class GIFByteSink {
    var bytes: [UInt8] = []
}

/// giflib's output callback: appends to the `GIFByteSink` in the file's user data.
private func gifWrite(_ gif: UnsafeMutablePointer<GifFileType>?, _ data: UnsafePointer<GifByteType>?, _ length: Int32) -> Int32 {
    guard let gif, let user = gif.pointee.UserData, let data, length >= 0 else { return 0 }
    let sink = Unmanaged<GIFByteSink>.fromOpaque(user).takeUnretainedValue()
    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return length
}
