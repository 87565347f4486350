import CPortraitMatte
import DepthbookEngine
import Foundation

/// Why the learned subject matte is not available or failed, in words a user can act on.
public struct PersonMatteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// MODNet, a portrait matting network, over the `CPortraitMatte` shim: one loaded pair of networks (portrait
/// and landscape input shapes) that mattes any number of photos. Safe to share between threads: the shim
/// makes every OpenCV call on one thread of its own, where calls take turns.
public final class PersonMatter: @unchecked Sendable {
    /// The files `scripts/install-models.sh` writes, by the shape they were made for.
    public static let portraitFile = "modnet-portrait.onnx"
    public static let landscapeFile = "modnet-landscape.onnx"

    private let handle: OpaquePointer
    private let counter = NSLock()
    private var runs = 0

    /// Loads both networks from `directory`. Throws with the file and OpenCV's reason when either is missing
    /// or not a network OpenCV can run (a truncated download, another model's file).
    public init(modelsDirectory directory: String, threads: Int = 2) throws {
        let portrait = directory + "/" + Self.portraitFile, landscape = directory + "/" + Self.landscapeFile
        for path in [portrait, landscape] where !FileManager.default.fileExists(atPath: path) {
            throw PersonMatteError("no \(path) (run scripts/install-models.sh, or set DEPTHBOOK_MODELS)")
        }
        var message = [CChar](repeating: 0, count: 512)
        // Each matte builds its network from the file's bytes and frees it after: a kept network holds about
        // 350 MB of layer outputs for the life of the process (see PortraitMatte.cpp).
        guard let opened = pm_open(portrait, landscape, Int32(threads), 0, &message, message.count) else {
            throw PersonMatteError("cannot load the person matte network from \(directory): \(Self.text(message))")
        }
        handle = opened
    }

    deinit { pm_close(handle) }

    /// How many mattes this handle has computed (the network runs once per call).
    public var inferences: Int { counter.withLock { runs } }

    /// The subject matte of `image` (upright RGB), 0...1, at the network's resolution, covering the whole image.
    public func matte(of image: RGBImage8) throws -> FloatPlane {
        guard image.width > 0, image.height > 0, image.channels == 3 || image.channels == 4 else {
            throw PersonMatteError("the person matte needs an RGB image")
        }
        var width: Int32 = 0, height: Int32 = 0
        guard pm_matte_size(handle, Int32(image.width), Int32(image.height), &width, &height) == 0, width > 0, height > 0 else {
            throw PersonMatteError("no matte size for a \(image.width)×\(image.height) image")
        }
        var alpha = [Float](repeating: 0, count: Int(width) * Int(height))
        var message = [CChar](repeating: 0, count: 512)
        counter.withLock { runs += 1 }
        let status = image.samples.withUnsafeBufferPointer { pixels in
            alpha.withUnsafeMutableBufferPointer { out in
                pm_matte(handle, pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * image.channels),
                         Int32(image.channels), out.baseAddress, out.count, &width, &height, &message, message.count)
            }
        }
        guard status == 0 else { throw PersonMatteError("the person matte network failed: \(Self.text(message))") }
        return FloatPlane(width: Int(width), height: Int(height), channels: 1, samples: alpha)
    }

    /// `photo` with its person matte, when it carries no portrait matte of its own (Apple's stays the truth,
    /// so the network is not run for it) and has none yet. A photo taken without depth gets its depth estimated
    /// from the matte here too (`EstimatedDisparity`), when the matte holds someone: once per photo, with the
    /// matte it comes from.
    public func withPersonMatte(_ photo: Photo) throws -> Photo {
        guard photo.personMatte == nil, photo.matte(.portraitEffectsMatte) == nil else { return photo }
        var matted = photo
        let matte = try matte(of: photo.image)
        matted.personMatte = matte
        if matted.depth == nil { matted.depth = EstimatedDisparity.depth(fromMatte: matte) }
        return matted
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
