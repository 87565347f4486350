import DepthbookEngine
import DepthbookTestSupport
import Testing

@testable import DepthbookCodecs

/// Animated GIFs written with giflib's encoder decode, with giflib's decoder, to what was asked.
@Suite(.timeLimit(.minutes(30)))
struct DepthGIFTests {
    /// `count` frames of a moving colour gradient.
    static func frames(_ count: Int, width: Int, height: Int) -> [RGBImage8] {
        (0..<count).map { k in
            var s = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height { for x in 0..<width {
                let i = (y * width + x) * 3
                s[i] = UInt8((x * 255) / max(1, width - 1))
                s[i + 1] = UInt8((y * 255) / max(1, height - 1))
                s[i + 2] = UInt8((k * 60 + x * 2) % 256)
            } }
            return RGBImage8(width: width, height: height, channels: 3, samples: s)
        }
    }

    @Test(arguments: [(6, 40, 30), (1, 7, 5), (12, 64, 48)])
    func decodesToTheRequestedFrameCountAndSize(_ count: Int, _ width: Int, _ height: Int) throws {
        let frames = Self.frames(count, width: width, height: height)
        let bytes = try GIFEncoder.encode(frames: frames, delayCentiseconds: 7)
        #expect(Array(bytes.prefix(6)) == Array("GIF89a".utf8))
        let gif = try GIFDecoder.decode(bytes)
        #expect(gif.frames.count == count)
        #expect(gif.width == width && gif.height == height)
        #expect(gif.delays == [Int](repeating: 7, count: count))
        #expect(gif.loopCount == 0)
        // These frames fill the colour cube; 256 median-cut boxes are about 40 levels a side, so the mean
        // error per channel is about 10 (a fixed 6×7×6 palette would give about 11–13).
        for (a, b) in zip(frames, gif.frames) {
            let error = zip(a.samples, b.samples).map { abs(Int($0) - Int($1)) }.reduce(0, +)
            #expect(Double(error) / Double(a.samples.count) < 12)
        }
    }

    @Test func fewColoursComeBackExactly() throws {
        // 50 distinct colours in stripes: median cut gives each its own entry, so the round trip is lossless.
        let width = 50, height = 10
        let frames = (0..<3).map { k in
            RGBImage8(width: width, height: height, channels: 3, samples: (0..<(width * height)).flatMap { i -> [UInt8] in
                let c = (i % width + k) % 50
                return [UInt8(c * 5), UInt8(255 - c * 3), UInt8((c * 37) % 256)]
            })
        }
        let gif = try GIFDecoder.decode(try GIFEncoder.encode(frames: frames))
        #expect(gif.frames == frames)
    }

    @Test func badInputIsRefusedWithAMessage() throws {
        #expect(throws: PhotoError.self) { try GIFEncoder.encode(frames: []) }
        let mixed = Self.frames(1, width: 4, height: 4) + Self.frames(1, width: 5, height: 4)
        #expect(throws: PhotoError.self) { try GIFEncoder.encode(frames: mixed) }
        #expect(throws: PhotoError.self) { try GIFDecoder.decode([]) }
        #expect(throws: PhotoError.self) { try GIFDecoder.decode(Array("GIF89a not really".utf8)) }
        // A real GIF cut in half fails cleanly.
        let whole = try GIFEncoder.encode(frames: Self.frames(3, width: 20, height: 20))
        #expect(throws: PhotoError.self) { try GIFDecoder.decode(Array(whole.prefix(whole.count / 2))) }
    }

    /// A header of a few bytes claiming a 60000 × 60000 canvas is refused before any frame is read.
    @Test func aCanvasOverThePixelLimitIsRefusedFromItsHeader() throws {
        // GIF89a, logical screen 60000 × 60000 (little-endian), no colour table, then the trailer.
        let bomb: [UInt8] = Array("GIF89a".utf8) + [0x60, 0xEA, 0x60, 0xEA, 0x00, 0x00, 0x00, 0x3B]
        #expect { try GIFDecoder.decode(bomb) } throws: { error in
            guard case PhotoError.tooLarge(let what) = error else { return false }
            return what.contains("canvas is 60000×60000 pixels")
        }
        // Under the limit, the same header gets as far as giflib, which finds no image in it.
        let small: [UInt8] = Array("GIF89a".utf8) + [0x04, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x3B]
        #expect { try GIFDecoder.decode(small) } throws: { error in
            guard case PhotoError.corrupt = error else { return false }
            return true
        }
    }
}
