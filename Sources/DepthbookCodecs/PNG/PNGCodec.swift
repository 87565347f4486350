import CPNG
import DepthbookEngine

/// A decoded PNG: its samples widened to 16 bits so 8- and 16-bit files share one shape.
public struct PNGImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA), as stored.
    public var channels: Int
    /// 8 or 16.
    public var bitDepth: Int
    /// Interleaved samples in 0...255 (8-bit) or 0...65535 (16-bit).
    public var samples: [UInt16]

    /// The first channel as floats in 0...1 (a depth map or mask).
    public func firstChannelUnit() -> FloatPlane {
        let scale = 1 / Float(bitDepth == 16 ? 65535 : 255)
        var out = [Float](repeating: 0, count: width * height)
        for i in 0..<out.count { out[i] = Float(samples[i * channels]) * scale }
        return FloatPlane(width: width, height: height, channels: 1, samples: out)
    }
}

/// PNG through libpng's simplified API (`png_image_*`), which reports errors by return value.
///
/// libpng's classic API reports errors with `longjmp`, which Swift cannot survive; the simplified API
/// catches them inside libpng and hands back a message. Samples are read in the file's own bit depth and
/// colour model so that no gamma conversion touches depth values.
public enum PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static let flagAlpha: UInt32 = 0x01
    private static let flagColor: UInt32 = 0x02
    private static let flagLinear: UInt32 = 0x04

    /// Whether `bytes` start like a PNG file.
    public static func isPNG(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.starts(with: signature) }

    /// Decodes a PNG in its own channel layout and bit depth.
    public static func decode(_ bytes: [UInt8], limits: DecodeLimits = .default, what: String = "the PNG") throws -> PNGImage {
        try decode(bytes[...], limits: limits, what: what)
    }

    static func decode(_ bytes: ArraySlice<UInt8>, limits: DecodeLimits, what: String = "the PNG") throws -> PNGImage {
        guard !bytes.isEmpty else { throw PhotoError.empty }
        guard isPNG(bytes) else { throw PhotoError.unsupportedFormat("no PNG signature") }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let ok = bytes.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count)
        }
        guard ok != 0 else {
            let message = messageOf(&image)
            png_image_free(&image)
            return try { throw classify(message) }()
        }
        let width = Int(image.width), height = Int(image.height)
        do {
            try limits.check(width: width, height: height, what: what)
        } catch {
            png_image_free(&image)
            throw error
        }
        // Keep the file's colour, alpha and depth: no compositing, no gamma change.
        let format = image.format & (flagAlpha | flagColor | flagLinear)
        image.format = format
        let channels = (format & flagColor != 0 ? 3 : 1) + (format & flagAlpha != 0 ? 1 : 0)
        let sixteen = format & flagLinear != 0
        let count = width * height * channels
        var failure: String?
        var samples: [UInt16]
        if sixteen {
            samples = [UInt16](repeating: 0, count: count)
            let rc = samples.withUnsafeMutableBytes { buf in
                png_image_finish_read(&image, nil, buf.baseAddress, 0, nil)
            }
            if rc == 0 { failure = messageOf(&image) }
        } else {
            var eight = [UInt8](repeating: 0, count: count)
            let rc = eight.withUnsafeMutableBytes { buf in
                png_image_finish_read(&image, nil, buf.baseAddress, 0, nil)
            }
            if rc == 0 { failure = messageOf(&image) }
            samples = eight.map { UInt16($0) }
        }
        png_image_free(&image)
        if let failure { throw classify(failure) }
        return PNGImage(width: width, height: height, channels: channels, bitDepth: sixteen ? 16 : 8, samples: samples)
    }

    /// Encodes an 8-bit grey plane (one channel) or an RGB image (three channels).
    public static func encode(_ plane: Raster<UInt8>) throws -> [UInt8] {
        guard plane.channels == 1 || plane.channels == 3 else {
            throw PhotoError.encodingFailed("PNG encoding takes 1 or 3 channels, not \(plane.channels)")
        }
        return try plane.samples.withUnsafeBytes { raw in
            try write(raw, width: plane.width, height: plane.height, format: plane.channels == 3 ? flagColor : 0)
        }
    }

    /// Encodes a 16-bit grey plane.
    public static func encode(_ plane: Raster<UInt16>) throws -> [UInt8] {
        guard plane.channels == 1 else { throw PhotoError.encodingFailed("16-bit PNG encoding takes one channel") }
        return try plane.samples.withUnsafeBytes { raw in
            try write(raw, width: plane.width, height: plane.height, format: flagLinear)
        }
    }

    /// Encodes a 0...1 float plane (a mask or matte) as 8- or 16-bit grey; NaN becomes 0, values are clamped.
    public static func encode(unit plane: FloatPlane, bitDepth: Int = 8) throws -> [UInt8] {
        guard plane.channels == 1 else { throw PhotoError.encodingFailed("PNG encoding of a plane takes one channel") }
        func quantize(_ v: Float, _ top: Float) -> Float { v.isNaN ? 0 : (min(max(v, 0), 1) * top).rounded() }
        if bitDepth == 16 {
            return try encode(Raster<UInt16>(width: plane.width, height: plane.height, channels: 1,
                                             samples: plane.samples.map { UInt16(quantize($0, 65535)) }))
        }
        return try encode(Raster<UInt8>(width: plane.width, height: plane.height, channels: 1,
                                        samples: plane.samples.map { UInt8(quantize($0, 255)) }))
    }

    private static func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, format: UInt32) throws -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PhotoError.encodingFailed("a PNG needs at least one pixel, not \(width)×\(height)")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = format
        var size: Int = 0
        guard png_image_write_to_memory(&image, nil, &size, 0, pixels.baseAddress, 0, nil) != 0, size > 0 else {
            let message = messageOf(&image)
            png_image_free(&image)
            throw PhotoError.encodingFailed("libpng: \(message)")
        }
        var out = [UInt8](repeating: 0, count: size)
        let rc = out.withUnsafeMutableBytes { buf in
            png_image_write_to_memory(&image, buf.baseAddress, &size, 0, pixels.baseAddress, 0, nil)
        }
        let message = messageOf(&image)
        png_image_free(&image)
        guard rc != 0 else { throw PhotoError.encodingFailed("libpng: \(message)") }
        return Array(out.prefix(size))
    }

    private static func messageOf(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func classify(_ message: String) -> PhotoError {
        let lower = message.lowercased()
        if lower.contains("eof") || lower.contains("truncat") || lower.contains("not enough") || lower.contains("read beyond") {
            return .truncated("the PNG data stops early (\(message))")
        }
        return .corrupt("the PNG cannot be decoded (\(message))")
    }
}
