import CAVCodec
import DepthbookEngine
import Foundation

/// Writes H.264 video in an MP4 file with FFmpeg's libraries (libx264 through libavcodec, the MP4 muxer of
/// libavformat, RGB→YUV 4:2:0 by libswscale). Used for the Wiggle loop next to its GIF.
///
/// The MP4 muxer seeks back to write its index, so the file goes to a private temporary path first and is
/// read back; nothing is left behind, whatever fails.
public enum MP4Encoder {
    /// Encodes `frames` (RGB, all the same size) at `framesPerSecond`. 4:2:0 needs even sizes, so an odd
    /// width or height loses its last column or row. `quality` is x264's constant rate factor (0 lossless
    /// ... 51 worst; 18 is visually transparent).
    public static func encode(frames: [RGBImage8], framesPerSecond: Int = 12, quality: Int = 18) throws -> [UInt8] {
        guard !frames.isEmpty else { throw PhotoError.encodingFailed("a video needs at least one frame") }
        return try encode(frameCount: frames.count, framesPerSecond: framesPerSecond, quality: quality) { frames[$0] }
    }

    /// Encodes `frameCount` frames asked for one at a time (`frame(k)`), each converted and let go before
    /// the next is made, so memory holds one RGB frame and the encoder's own lookahead.
    public static func encode(frameCount: Int, framesPerSecond: Int = 12, quality: Int = 18,
                              frame: (Int) throws -> RGBImage8) throws -> [UInt8] {
        guard frameCount >= 1 else { throw PhotoError.encodingFailed("a video needs at least one frame") }
        guard (1...120).contains(framesPerSecond), (0...51).contains(quality) else {
            throw PhotoError.encodingFailed("frame rate must be 1...120 and quality 0...51")
        }
        let first = try frame(0)
        let width = first.width & ~1, height = first.height & ~1
        guard width >= 2, height >= 2, width <= 8192, height <= 8192 else {
            throw PhotoError.encodingFailed("video frames must be 2...8192 pixels wide and high, got \(first.width)×\(first.height)")
        }
        _ = quietLogging
        let path = NSTemporaryDirectory() + "\(scratchPrefix)\(getpid())-\(UUID().uuidString).mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try MP4Writer(path: path, width: width, height: height, framesPerSecond: framesPerSecond, quality: quality)
        for k in 0..<frameCount {
            let f = k == 0 ? first : try frame(k)
            guard f.width == first.width, f.height == first.height, f.channels == 3 else {
                throw PhotoError.encodingFailed("frame \(k) is \(f.width)×\(f.height)×\(f.channels), not \(first.width)×\(first.height) RGB")
            }
            try writer.append(f)
        }
        try writer.finish()
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotoError.encodingFailed("the encoded video could not be read back")
        }
        return [UInt8](data)
    }

    /// Scratch files are named `depthbook-<pid>-<uuid>.mp4`: a process killed mid-export leaves one behind, and
    /// the process id says whose it is.
    static let scratchPrefix = "depthbook-"

    /// Removes scratch videos whose process is gone (a `kill -9` mid-export), and those of the older unnamed kind
    /// an hour old; another live process's files are left alone. Returns how many were removed.
    @discardableResult
    public static func removeAbandonedScratchFiles(in directory: String = NSTemporaryDirectory()) -> Int {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(scratchPrefix) && name.hasSuffix(".mp4") {
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            let middle = name.dropFirst(scratchPrefix.count).dropLast(4)
            let abandoned: Bool
            if let dash = middle.firstIndex(of: "-"), let pid = Int32(middle[..<dash]), pid > 0, middle[middle.index(after: dash)...].count == 36 {
                abandoned = kill(pid, 0) != 0 && errno == ESRCH
            } else if middle.count == 36, let modified = (try? files.attributesOfItem(atPath: path))?[.modificationDate] as? Date {
                abandoned = Date().timeIntervalSince(modified) > 3600
            } else {
                abandoned = false
            }
            if abandoned, (try? files.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    /// libx264 prints a page of statistics per video; failures reach the caller as errors instead.
    private static let quietLogging: Void = av_log_set_level(AV_LOG_ERROR)
}

/// One open MP4 file with its H.264 encoder; frees every FFmpeg object it made on deinit, finished or not.
private final class MP4Writer {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    /// Owned by `format`. Every stored property has a value before anything can fail, so deinit always runs.
    private var stream: UnsafeMutablePointer<AVStream>?
    private let width: Int, height: Int
    private var nextPTS: Int64 = 0
    private var headerWritten = false

    init(path: String, width: Int, height: Int, framesPerSecond: Int, quality: Int) throws {
        self.width = width
        self.height = height
        try check(avformat_alloc_output_context2(&format, nil, "mp4", path), "setting up the MP4 muxer")
        guard let format else { throw PhotoError.encodingFailed("the MP4 muxer is missing") }
        guard let encoder = avcodec_find_encoder_by_name("libx264") else {
            throw PhotoError.encodingFailed("this FFmpeg has no libx264 encoder")
        }
        guard let stream = avformat_new_stream(format, nil), let codec = avcodec_alloc_context3(encoder) else {
            throw PhotoError.encodingFailed("out of memory setting up the video stream")
        }
        self.stream = stream
        self.codec = codec
        codec.pointee.width = Int32(width)
        codec.pointee.height = Int32(height)
        codec.pointee.time_base = AVRational(num: 1, den: Int32(framesPerSecond))
        codec.pointee.framerate = AVRational(num: Int32(framesPerSecond), den: 1)
        codec.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        codec.pointee.gop_size = Int32(framesPerSecond * 2)
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        av_opt_set(codec.pointee.priv_data, "preset", "medium", 0)
        av_opt_set(codec.pointee.priv_data, "crf", "\(quality)", 0)
        // A short lookahead and two threads: x264 keeps lookahead frames and a set of frames per thread in
        // memory (by default 40 and 1.5 threads per core: hundreds of MB at 2048 px).
        av_opt_set(codec.pointee.priv_data, "rc-lookahead", "10", 0)
        codec.pointee.thread_count = 2
        try check(avcodec_open2(codec, encoder, nil), "opening the H.264 encoder")
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), "describing the video stream")
        stream.pointee.time_base = codec.pointee.time_base
        try check(avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE), "opening the output file")
        try check(avformat_write_header(format, nil), "writing the MP4 header")
        headerWritten = true

        guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw PhotoError.encodingFailed("out of memory for a video frame")
        }
        self.frame = frame
        self.packet = packet
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame, 0), "allocating a video frame")
        scaler = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height),
                                AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
        guard scaler != nil else { throw PhotoError.encodingFailed("no RGB to YUV converter") }
    }

    deinit {
        if let format, format.pointee.pb != nil { avio_closep(&format.pointee.pb) }
        avformat_free_context(format)
        avcodec_free_context(&codec)
        av_frame_free(&frame)
        av_packet_free(&packet)
        sws_freeContext(scaler)
    }

    /// Converts one RGB frame (cropped to the even size) to YUV and sends it to the encoder.
    func append(_ image: RGBImage8) throws {
        guard let frame else { return }
        try check(av_frame_make_writable(frame), "reusing the video frame")
        image.samples.withUnsafeBufferPointer { rgb in
            var source: [UnsafePointer<UInt8>?] = [rgb.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(image.width * 3), 0, 0, 0]
            withUnsafeMutablePointer(to: &frame.pointee.data) { planes in
                planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { destination in
                    withUnsafeMutablePointer(to: &frame.pointee.linesize) { lines in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { destinationStrides in
                            _ = sws_scale(scaler, &source, &strides, 0, Int32(height), destination, destinationStrides)
                        }
                    }
                }
            }
        }
        frame.pointee.pts = nextPTS
        nextPTS += 1
        try check(avcodec_send_frame(codec, frame), "encoding a frame")
        try drain()
    }

    /// Flushes the encoder and writes the MP4 index.
    func finish() throws {
        try check(avcodec_send_frame(codec, nil), "flushing the encoder")
        try drain()
        try check(av_write_trailer(format), "finishing the MP4 file")
        if let format { avio_closep(&format.pointee.pb) }
    }

    /// Writes every packet the encoder has ready.
    private func drain() throws {
        while true {
            let status = avcodec_receive_packet(codec, packet)
            if status == cav_error_again() || status == cav_error_eof() { return }
            try check(status, "receiving encoded video")
            guard let packet, let codec, let stream else { return }
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            try check(av_interleaved_write_frame(format, packet), "writing video to the file")
        }
    }
}

/// Turns FFmpeg's negative status codes into a message that says what failed.
private func check(_ status: Int32, _ what: String) throws {
    guard status < 0 else { return }
    var text = [CChar](repeating: 0, count: 256)
    av_strerror(status, &text, text.count)
    throw PhotoError.encodingFailed("\(what): \(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
}
