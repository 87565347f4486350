import CAVCodec
import DepthbookCodecs
import DepthbookEngine
import Foundation
import Testing

/// The MP4 export of animated effects, read back with FFmpeg's demuxer and decoder (a reader separate from
/// the writer's code path): frame count, size, and pixels close to what was encoded.
@Suite(.timeLimit(.minutes(30)))
struct MP4EncoderTests {
    /// `count` frames of a smooth gradient with a bright square that moves one step per frame.
    private func frames(_ count: Int, width: Int, height: Int) -> [RGBImage8] {
        (0..<count).map { k in
            var samples = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 3
                    let inSquare = (x - 4 * k) >= 8 && (x - 4 * k) < 24 && y >= 8 && y < 24
                    samples[i] = inSquare ? 240 : UInt8(x * 200 / width)
                    samples[i + 1] = inSquare ? 230 : UInt8(y * 200 / height)
                    samples[i + 2] = inSquare ? 40 : 90
                }
            }
            return RGBImage8(width: width, height: height, channels: 3, samples: samples)
        }
    }

    @Test func encodesEveryFrameAndDecodesCloseToTheSource() throws {
        let source = frames(12, width: 96, height: 64)
        let bytes = try MP4Encoder.encode(frames: source, framesPerSecond: 12)
        #expect(Array(bytes[4..<8]) == Array("ftyp".utf8), "an ISO media file starts with its ftyp box")
        let decoded = try MP4Reference.decode(bytes)
        #expect(decoded.count == source.count)
        for (k, (ours, theirs)) in zip(source, decoded).enumerated() {
            #expect(theirs.width == 96 && theirs.height == 64)
            let mean = zip(ours.samples, theirs.samples).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / ours.samples.count
            #expect(mean <= 4, "frame \(k) differs by \(mean) levels on average")
        }
        // Frames stay in order: the square sits where frame k put it.
        let k = 7, x = 4 * k + 16, y = 16
        let p = decoded[k].samples[(y * 96 + x) * 3]
        #expect(p > 200, "frame \(k)'s square is missing at x = \(x) (red \(p))")
    }

    @Test func oddSizesLoseTheirLastRowAndColumn() throws {
        let decoded = try MP4Reference.decode(try MP4Encoder.encode(frames: frames(3, width: 97, height: 65)))
        #expect(decoded.count == 3)
        #expect(decoded.allSatisfy { $0.width == 96 && $0.height == 64 })
    }

    /// A process killed mid-export leaves its scratch video behind: start-up removes those whose process is
    /// gone (and unnamed old ones), never a live process's, nor anything else in the folder.
    @Test func scratchVideosOfDeadProcessesAreRemoved() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mp4-scratch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let uuid = { UUID().uuidString }
        let names = [
            "dead": "depthbook-\(dead.processIdentifier)-\(uuid()).mp4",
            "live": "depthbook-\(getpid())-\(uuid()).mp4",
            "oldUnnamed": "depthbook-\(uuid()).mp4",
            "newUnnamed": "depthbook-\(uuid()).mp4",
            "other": "depthbook-notes.mp4",
            "elsewhere": "holiday-\(dead.processIdentifier)-\(uuid()).mp4",
        ]
        for (_, name) in names { #expect(FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data([1]))) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: "\(dir)/\(names["oldUnnamed"]!)")
        #expect(MP4Encoder.removeAbandonedScratchFiles(in: dir) == 2)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        #expect(left == Set(["live", "newUnnamed", "other", "elsewhere"].map { names[$0]! }))
    }

    @Test func badInputIsRefusedWithAMessage() {
        #expect(throws: PhotoError.self) { try MP4Encoder.encode(frames: []) }
        let mixed = frames(1, width: 32, height: 32) + frames(1, width: 64, height: 32)
        #expect(throws: PhotoError.self) { try MP4Encoder.encode(frames: mixed) }
        #expect(throws: PhotoError.self) { try MP4Encoder.encode(frames: frames(1, width: 1, height: 32)) }
        #expect(throws: PhotoError.self) { try MP4Encoder.encode(frames: frames(2, width: 32, height: 32), framesPerSecond: 0) }
    }
}

/// Reads an MP4 back into RGB frames with libavformat + libavcodec + libswscale.
enum MP4Reference {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func decode(_ bytes: [UInt8]) throws -> [RGBImage8] {
        let path = NSTemporaryDirectory() + "depthbook-test-\(UUID().uuidString).mp4"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var format: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&format, path, nil, nil) == 0, let format else { throw Failure(description: "not a media file") }
        defer { var f: UnsafeMutablePointer<AVFormatContext>? = format; avformat_close_input(&f) }
        guard avformat_find_stream_info(format, nil) >= 0 else { throw Failure(description: "no stream info") }
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let streams = format.pointee.streams, let stream = streams[Int(index)] else {
            throw Failure(description: "no video stream")
        }
        var codec = avcodec_alloc_context3(decoder)
        defer { avcodec_free_context(&codec) }
        guard avcodec_parameters_to_context(codec, stream.pointee.codecpar) >= 0, avcodec_open2(codec, decoder, nil) >= 0 else {
            throw Failure(description: "cannot open the decoder")
        }
        var packet = av_packet_alloc(), frame = av_frame_alloc()
        defer { av_packet_free(&packet); av_frame_free(&frame) }
        var out: [RGBImage8] = []
        func receive() throws {
            while avcodec_receive_frame(codec, frame) >= 0, let frame {
                out.append(try rgb(frame))
            }
        }
        while av_read_frame(format, packet) >= 0 {
            if packet?.pointee.stream_index == index { avcodec_send_packet(codec, packet); try receive() }
            av_packet_unref(packet)
        }
        avcodec_send_packet(codec, nil)
        try receive()
        return out
    }

    private static func rgb(_ frame: UnsafeMutablePointer<AVFrame>) throws -> RGBImage8 {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        guard let scaler = sws_getContext(Int32(w), Int32(h), AVPixelFormat(rawValue: frame.pointee.format), Int32(w), Int32(h),
                                          AV_PIX_FMT_RGB24, SWS_BICUBIC, nil, nil, nil) else { throw Failure(description: "no converter") }
        defer { sws_freeContext(scaler) }
        var samples = [UInt8](repeating: 0, count: w * h * 3)
        samples.withUnsafeMutableBufferPointer { buffer in
            var destination: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(w * 3), 0, 0, 0]
            withUnsafePointer(to: &frame.pointee.data) { planes in
                planes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { source in
                    withUnsafePointer(to: &frame.pointee.linesize) { lines in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            _ = sws_scale(scaler, source, sourceStrides, 0, Int32(h), &destination, &strides)
                        }
                    }
                }
            }
        }
        return RGBImage8(width: w, height: h, channels: 3, samples: samples)
    }
}
