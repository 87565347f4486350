import DepthbookEngine
import Foundation

/// The one way into Depthbook for photo files: HEIC/HEIF, JPEG (Apple MPF, GDepth, Dynamic Depth) and PNG,
/// optionally with a separate depth map.
///
/// Every plane of the returned `Photo` is upright and aligned with the image, each at its own resolution.
/// Anything wrong with the input surfaces as a `PhotoError`.
public enum PhotoReader {
    /// The container formats Depthbook recognises from a file's first bytes.
    public enum Format: String, Sendable {
        case heif, jpeg, png
    }

    /// Recognises a format by its signature; nil for anything else.
    public static func sniff(_ bytes: ArraySlice<UInt8>) -> Format? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if PNGCodec.isPNG(bytes) { return .png }
        if bytes.count >= 12, Array(bytes.dropFirst(4).prefix(4)) == Array("ftyp".utf8) { return .heif }
        return nil
    }

    /// Reads a photo file, and a separate depth map file when given (`polarity` says which way its grey runs,
    /// or `.detect` to decide from the map and the image).
    public static func read(contentsOf path: String, depthMapPath: String? = nil, polarity: DepthMapPolarity = .detect,
                            limits: DecodeLimits = .default) throws -> Photo {
        let bytes = try FileBytes.read(path, limits: limits)
        let depthBytes = try depthMapPath.map { try FileBytes.read($0, limits: limits) }
        return try read(data: bytes, depthMapData: depthBytes, polarity: polarity, limits: limits)
    }

    /// Reads a photo from memory, and a separate depth map when given.
    public static func read(data: [UInt8], depthMapData: [UInt8]? = nil, polarity: DepthMapPolarity = .detect,
                            limits: DecodeLimits = .default) throws -> Photo {
        guard !data.isEmpty else { throw PhotoError.empty }
        try limits.check(byteCount: data.count)
        var photo: Photo
        switch sniff(data[...]) {
        case .jpeg: photo = try JPEGPhotoReader.read(data, limits: limits)
        case .heif: photo = try HeifPhotoReader.read(data, limits: limits)
        case .png: photo = try readPNG(data, limits: limits)
        case nil:
            if data.count < 12, data.starts(with: [0xFF, 0xD8]) || PNGCodec.signature.starts(with: data.prefix(8)) {
                throw PhotoError.truncated("only \(data.count) bytes")
            }
            throw PhotoError.unsupportedFormat("the file starts with bytes \(data.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " "))")
        }
        // A photo whose file names no face (HEIC selfies never do) gets the faces found in the picture.
        if !photo.faces.contains(where: { $0.type.lowercased() == "face" }) {
            photo.faces += FaceDetector.faces(in: photo.image)
        }
        if let depthMapData {
            photo.depth = try SeparateDepthMap.read(depthMapData, for: photo.image, faces: photo.faces, polarity: polarity, limits: limits)
        }
        return photo
    }

    /// A PNG photo: image only, grey or RGB, 8 or 16 bits (alpha ignored).
    static func readPNG(_ bytes: [UInt8], limits: DecodeLimits) throws -> Photo {
        let png = try PNGCodec.decode(bytes, limits: limits)
        let shift = png.bitDepth == 16 ? 8 : 0
        let color = png.channels >= 3
        var rgb = [UInt8](repeating: 0, count: png.width * png.height * 3)
        for i in 0..<(png.width * png.height) {
            let base = i * png.channels
            for c in 0..<3 { rgb[i * 3 + c] = UInt8(png.samples[base + (color ? c : 0)] >> shift) }
        }
        return Photo(image: RGBImage8(width: png.width, height: png.height, channels: 3, samples: rgb))
    }
}

/// Which way a separate depth map's grey runs: many tools write disparity (brighter is nearer), others depth
/// (brighter is farther). `.detect` decides from the map and its image (`DepthMapPolarityDetector`).
public enum DepthMapPolarity: String, Sendable, CaseIterable {
    case brighterIsNearer = "nearer"
    case brighterIsFarther = "farther"
    case detect = "detect"
}

/// A depth map in a file of its own (the "bring your own depth map" case).
///
/// With no units known, the grey level becomes relative disparity in 0...1: as it is when brighter is nearer,
/// turned over (1 − grey) when brighter is farther, so nearer is always the larger value. Which way it runs
/// is the caller's word, or detected (`faces` help); the depth records it as `greyPolarity`.
enum SeparateDepthMap {
    static func read(_ bytes: [UInt8], for image: RGBImage8, faces: [FaceRegion] = [], polarity: DepthMapPolarity = .detect,
                     limits: DecodeLimits) throws -> DepthData {
        guard !bytes.isEmpty else { throw PhotoError.empty }
        let limits = limits.auxiliary
        try limits.check(byteCount: bytes.count)
        let plane: FloatPlane
        switch PhotoReader.sniff(bytes[...]) {
        case .jpeg:
            let structure = try JPEGStructure(bytes)
            plane = try DepthPlanes.jpegUnitPlane(bytes, limits: limits, what: "the depth map").upright(structure.exif?.orientation ?? .up)
        case .png:
            plane = try PNGCodec.decode(bytes, limits: limits, what: "the depth map (PNG)").firstChannelUnit()
        default:
            throw PhotoError.unsupportedFormat("the depth map must be a JPEG or PNG image")
        }
        let imageAspect = Double(image.width) / Double(image.height)
        let depthAspect = Double(plane.width) / Double(plane.height)
        guard abs(imageAspect - depthAspect) <= 0.02 * imageAspect else {
            throw PhotoError.depthMismatch("the image is \(image.width)×\(image.height) but the depth map is \(plane.width)×\(plane.height)")
        }
        var map = plane
        let decided = polarity == .detect ? DepthMapPolarityDetector.decide(map: plane, image: image, faces: faces).polarity : polarity
        if decided == .brighterIsFarther { map.samples = map.samples.map { 1 - $0 } }
        var depth = DepthData(kind: .disparity, map: map, accuracy: .relative, isFiltered: false)
        depth.greyPolarity = GreyPolarity(brighterIsNearer: decided == .brighterIsNearer, detected: polarity == .detect)
        guard depth.range != nil else { throw PhotoError.depthAllHoles }
        return depth
    }
}

/// Reads whole files with a size check before the allocation.
enum FileBytes {
    static func read(_ path: String, limits: DecodeLimits) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw PhotoError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PhotoError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw PhotoError.unreadable(path: path, reason: "not a regular file") }
        let size = Int(info.st_size)
        try limits.check(byteCount: size)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            var done = 0
            while done < size {
                guard let base = buf.baseAddress else { break }
                let n = Glibc.read(fd, base + done, size - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { failure = n < 0 ? errno : 0; break }
                done += n
            }
            count = done
        }
        if failure != 0 { throw PhotoError.unreadable(path: path, reason: String(cString: strerror(failure))) }
        return bytes
    }
}
