/// Which plane of a photo a source node reads.
public enum PhotoPlane: Hashable, Sendable, CustomStringConvertible {
    case image
    /// Distance in metres (converted from disparity when the photo stores disparity), NaN for holes.
    case depth
    /// Inverse distance (converted from depth when the photo stores depth), NaN for holes.
    case disparity
    case matte(MatteKind)

    public var description: String {
        switch self {
        case .image: return "image"
        case .depth: return "depth"
        case .disparity: return "disparity"
        case .matte(let kind): return kind.rawValue
        }
    }
}

/// A plane of a photo, resampled to whatever size it is rendered at.
///
/// At its native size it is read as is (the image's bytes feed fused chains directly). Smaller renders (a
/// preview) compute the whole reduced plane once with an area-like bilinear reduction and cache it, so each
/// preview frame reads the reduced copy, never the full-resolution original. Larger renders interpolate
/// bilinearly, region only. Depth holes (NaN) are never averaged with real values.
public struct PhotoSource: ByteRowSource {
    public static let info = FilterInfo(
        name: "photoPlane", coreImageName: "CIImage(contentsOf:options: auxiliaryDisparity/…Matte)",
        summary: "A plane of the photo: the image, depth, disparity or a matte, resampled to the render size.")

    public let photo: Photo
    public let plane: PhotoPlane
    /// Identifies the photo in cache keys (e.g. the upload's SHA-256); the same id must mean the same pixels.
    public let photoID: String

    /// Throws `RenderError.missingPlane` when the photo has no such plane.
    public init(photo: Photo, plane: PhotoPlane, photoID: String) throws {
        switch plane {
        case .image: break
        case .depth, .disparity:
            guard photo.depth != nil else { throw RenderError.missingPlane("depth data") }
        case .matte(let kind):
            guard photo.matte(kind) != nil else { throw RenderError.missingPlane("\(kind.rawValue) matte") }
        }
        self.photo = photo
        self.plane = plane
        self.photoID = photoID
    }

    public var parameterKey: String { "photo=\(photoID),plane=\(plane)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [])
        return plane == .image ? .image : .plane
    }

    public func extent(inputs: [PixelSize]) -> PixelSize {
        switch plane {
        case .image: return PixelSize(width: photo.width, height: photo.height)
        case .depth, .disparity:
            let map = photo.depth?.map
            return PixelSize(width: map?.width ?? 0, height: map?.height ?? 0)
        case .matte(let kind):
            let m = photo.matte(kind)?.plane
            return PixelSize(width: m?.width ?? 0, height: m?.height ?? 0)
        }
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool {
        target.size.width < extent.width || target.size.height < extent.height
    }

    public func bytes(for target: RenderTarget, extent: PixelSize) -> Raster<UInt8>? {
        plane == .image && !photo.isReduced && target.size == extent ? photo.image : nil
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let target = request.target
        // A reduced photo's image covers the same frame with fewer pixels: it is resampled from what it holds.
        let native = plane == .image ? PixelSize(width: photo.image.width, height: photo.image.height) : extent(inputs: [])
        if target.size == native { return nativeBuffer(region: PixelRect(native)).cropped(to: target.region) }
        let resampler = Resampler(inSize: native, outSize: target.size, region: target.region, method: .bilinear,
                                  antialias: true, skipsNaN: plane == .depth || plane == .disparity)
        if plane == .image {
            let image = photo.image
            return image.samples.withUnsafeBufferPointer { bytes in
                resampler.run(bytes: bytes.baseAddress!, covering: PixelRect(native), channels: image.channels,
                              scale: 1.0 / 255.0, region: target.region, context: context)
            }
        }
        return resampler.run(input: nativeBuffer(region: PixelRect(native)), region: target.region, context: context)
    }

    /// The plane at native size as floats (image bytes / 255; depth converted to the kind asked for).
    func nativeBuffer(region: PixelRect) -> PixelBuffer {
        switch plane {
        case .image:
            let image = photo.image
            return PixelBuffer(region: region, channels: 3) { out in
                image.samples.withUnsafeBufferPointer { src in
                    for i in 0..<out.count { out[i] = Float(src[i]) * (1.0 / 255.0) }
                }
            }
        case .depth, .disparity:
            guard let depth = photo.depth else { return PixelBuffer(region: region, channels: 1, repeating: .nan) }
            let wanted: DepthKind = plane == .depth ? .depth : .disparity
            let map = depth.map.samples
            let invert = depth.kind != wanted
            return PixelBuffer(region: region, channels: 1) { out in
                for i in 0..<out.count {
                    let v = map[i]
                    out[i] = invert ? ((v.isNaN || v <= 0) ? .nan : 1 / v) : v
                }
            }
        case .matte(let kind):
            let samples = photo.matte(kind)?.plane.samples ?? []
            return PixelBuffer(region: region, channels: 1, samples: samples.count == region.pixelCount
                                ? samples : [Float](repeating: 0, count: region.pixelCount))
        }
    }
}

/// A plane given directly (a mask drawn by the user, a test pattern), with the same resampling as photo planes.
public struct PlaneSource: Filter {
    public static let info = FilterInfo(name: "plane", coreImageName: "CIImage(bitmapData:)",
                                        summary: "A float raster (1 or 3 channels) used as a source.")
    public let raster: Raster<Float>
    /// Identifies the raster's content in cache keys.
    public let id: String
    /// Whether NaN samples are holes to skip when resampling.
    public let hasHoles: Bool

    /// The native size the plane stands for (its own size unless stretched).
    public let stretchedSize: PixelSize?

    /// `stretchedTo` gives the plane another native size (a depth map standing where the image is) without
    /// resampling it: each render samples the raster once, at the render's own size.
    public init(_ raster: Raster<Float>, id: String, hasHoles: Bool = false, stretchedTo stretchedSize: PixelSize? = nil) throws {
        guard raster.channels == 1 || raster.channels == 3, raster.width > 0, raster.height > 0 else {
            throw RenderError.badInputs(filter: Self.info.name, message: "needs a non-empty 1- or 3-channel raster")
        }
        self.raster = raster
        self.id = id
        self.hasHoles = hasHoles
        self.stretchedSize = stretchedSize
    }

    public var parameterKey: String {
        stretchedSize.map { "id=\(id),stretched=\($0.width)x\($0.height)" } ?? "id=\(id)"
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [])
        return raster.channels == 3 ? .image : .plane
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { stretchedSize ?? PixelSize(width: raster.width, height: raster.height) }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool {
        target.size.width < extent.width || target.size.height < extent.height
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let target = request.target
        let native = PixelSize(width: raster.width, height: raster.height)
        let source = PixelBuffer(region: PixelRect(native), channels: raster.channels, samples: raster.samples)
        if target.size == native { return source.cropped(to: target.region) }
        let resampler = Resampler(inSize: native, outSize: target.size, region: target.region, method: .bilinear,
                                  antialias: true, skipsNaN: hasHoles)
        return resampler.run(input: source, region: target.region, context: context)
    }
}
