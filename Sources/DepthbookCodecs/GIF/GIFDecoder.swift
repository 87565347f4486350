import CGif
import DepthbookEngine

/// Reads a GIF with giflib's decoder into full-canvas RGB frames: used to check what the encoder wrote
/// (frame count, size, delays, loop) and, for any GIF, to show its frames.
public enum GIFDecoder {
    public struct Animation: Sendable {
        public var width: Int
        public var height: Int
        public var frames: [RGBImage8]
        /// Per frame, in hundredths of a second (0 when the file gives none).
        public var delays: [Int]
        /// The NETSCAPE2.0 loop count (0 = forever), nil when the file has no loop extension.
        public var loopCount: Int?
    }

    /// The most bytes of decoded frames one GIF may come to (each frame is the whole canvas): 120 frames of our
    /// own largest export, 2048 × 1536, are 1.1 GB.
    public static let maxDecodedBytes = 1_200_000_000

    /// Refuses a canvas over `limits`' pixels before giflib reads the frames (a header of a few bytes can claim
    /// 65535 × 65535), and frames that would come to more than `maxDecodedBytes`.
    public static func decode(_ bytes: [UInt8], limits: DecodeLimits = .default) throws -> Animation {
        guard !bytes.isEmpty else { throw PhotoError.empty }
        try limits.check(byteCount: bytes.count)
        let source = GIFByteSource(bytes)
        let box = Unmanaged.passRetained(source)
        defer { box.release() }
        var error: Int32 = 0
        guard let gif = DGifOpen(box.toOpaque(), gifRead, &error) else { throw failure("opening", error) }
        defer { DGifCloseFile(gif, &error) }
        try limits.check(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight), what: "the GIF's canvas")
        guard DGifSlurp(gif) == GIF_OK else { throw failure("reading", gif.pointee.Error) }
        let g = gif.pointee
        let width = Int(g.SWidth), height = Int(g.SHeight)
        let frameBytes = width * height * 3
        guard Int(g.ImageCount) <= maxDecodedBytes / frameBytes else {
            throw PhotoError.tooLarge("the GIF's \(g.ImageCount) frames of \(width)×\(height) would decode to more than \(maxDecodedBytes >> 20) MB")
        }
        var canvas = [UInt8](repeating: 0, count: width * height * 3)
        var frames: [RGBImage8] = [], delays: [Int] = []
        var loopCount: Int?
        for i in 0..<Int(g.ImageCount) {
            guard let image = g.SavedImages?[i] else { break }
            let d = image.ImageDesc
            guard let map = d.ColorMap ?? g.SColorMap, let colors = map.pointee.Colors, let raster = image.RasterBits else {
                throw PhotoError.corrupt("GIF frame \(i) has no colour map or pixels")
            }
            let count = Int(map.pointee.ColorCount)
            var gcb = GraphicsControlBlock()
            let hasGCB = DGifSavedExtensionToGCB(gif, Int32(i), &gcb) == GIF_OK
            for y in 0..<Int(d.Height) {
                let cy = Int(d.Top) + y
                if cy < 0 || cy >= height { continue }
                for x in 0..<Int(d.Width) {
                    let cx = Int(d.Left) + x
                    if cx < 0 || cx >= width { continue }
                    let index = Int(raster[y * Int(d.Width) + x])
                    if hasGCB, index == Int(gcb.TransparentColor) { continue }
                    let c = colors[min(index, count - 1)]
                    let o = (cy * width + cx) * 3
                    canvas[o] = c.Red; canvas[o + 1] = c.Green; canvas[o + 2] = c.Blue
                }
            }
            frames.append(RGBImage8(width: width, height: height, channels: 3, samples: canvas))
            delays.append(hasGCB ? Int(gcb.DelayTime) : 0)
            if loopCount == nil { loopCount = netscapeLoop(image) }
        }
        return Animation(width: width, height: height, frames: frames, delays: delays, loopCount: loopCount)
    }

    /// The loop count of a NETSCAPE2.0 application extension among a frame's extension blocks.
    static func netscapeLoop(_ image: SavedImage) -> Int? {
        guard let blocks = image.ExtensionBlocks else { return nil }
        let n = Int(image.ExtensionBlockCount)
        for k in 0..<n where blocks[k].Function == APPLICATION_EXT_FUNC_CODE && blocks[k].ByteCount == 11 {
            guard let b = blocks[k].Bytes, String(decoding: UnsafeBufferPointer(start: b, count: 11), as: UTF8.self) == "NETSCAPE2.0",
                  k + 1 < n, blocks[k + 1].ByteCount >= 3, let sub = blocks[k + 1].Bytes, sub[0] == 1 else { continue }
            return Int(sub[1]) | Int(sub[2]) << 8
        }
        return nil
    }

    static func failure(_ what: String, _ code: Int32) -> PhotoError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return .corrupt("GIF \(what): \(message)")
    }
}

/// The bytes giflib reads from, and how far it has read.
final class GIFByteSource {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// giflib's input callback: copies up to `length` bytes from the `GIFByteSource` in the user data.
private func gifRead(_ gif: UnsafeMutablePointer<GifFileType>?, _ data: UnsafeMutablePointer<GifByteType>?, _ length: Int32) -> Int32 {
    guard let gif, let user = gif.pointee.UserData, let data, length > 0 else { return 0 }
    let source = Unmanaged<GIFByteSource>.fromOpaque(user).takeUnretainedValue()
    let n = min(Int(length), source.bytes.count - source.offset)
    if n <= 0 { return 0 }
    source.bytes.withUnsafeBufferPointer { b in
        data.update(from: b.baseAddress! + source.offset, count: n)
    }
    source.offset += n
    return Int32(n)
}
