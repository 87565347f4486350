import CHeif
import DepthbookEngine
import Foundation

/// Reads a HEIC/HEIF photo with libheif: primary image (grids included), depth, every matte, EXIF and XMP.
///
/// libheif applies each item's own rotation and mirroring (`irot`/`imir`), so planes come out upright; the
/// EXIF orientation is reported but not applied again (HEIF says the transform properties win).
enum HeifPhotoReader {
    static func read(_ bytes: [UInt8], limits: DecodeLimits) throws -> Photo {
        try HeifBoxCheck.check(bytes)
        let context = try HeifContext(bytes: bytes, limits: limits)
        let threads = Int32(max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8)))
        heif_context_set_max_decoding_threads(context.raw, threads)
        let primary = try context.primaryHandle()
        try limits.check(width: primary.width, height: primary.height, what: "the image")
        let auxiliaryIDs = primary.auxiliaryIDs()

        // The primary image (the bulk of the work) decodes on another thread while this one decodes depth and
        // mattes. Each thread has its own context: libheif's read state is per context.
        let primaryResult = ResultBox()
        let group = DispatchGroup()
        if auxiliaryIDs.isEmpty {
            primaryResult.result = Result { try decodeRGB(primary) }
        } else {
            let own = try HeifContext(bytes: bytes, limits: limits)
            heif_context_set_max_decoding_threads(own.raw, threads)
            let ownPrimary = try own.primaryHandle()
            let job = UncheckedJob { primaryResult.result = Result { try decodeRGB(ownPrimary) } }
            DispatchQueue.global(qos: .userInitiated).async(group: group) { job.run() }
        }
        var planes: AuxiliaryPlanes
        do {
            planes = try readAuxiliary(primary, ids: auxiliaryIDs, limits: limits)
        } catch {
            group.wait()
            throw error
        }
        group.wait()
        let image = try primaryResult.result?.get() ?? decodeRGB(primary)

        let exif = primary.metadata(type: "Exif").lazy.compactMap { ExifBlock(heifPayload: $0) }.first
        let xmpText = primary.xmpPackets().first
        let icc = primary.iccProfile()
        let colorSpace = icc.map { ICCProfile.colorSpaceName($0) } ?? primary.nclxColorSpace() ?? "sRGB"
        let orientation = exif?.orientation ?? .up
        var photo = Photo(image: image, orientation: orientation, colorSpace: colorSpace, exif: exif?.bytes, xmp: xmpText)
        photo.iccProfile = icc
        if let xmpText {
            let xmp = try XMPDocument(xmpText)
            // Pixels are already upright, so regions written for the displayed image apply as they are.
            photo.faces = try FaceRegionsXMP.read(xmp, uprightWidth: image.width, uprightHeight: image.height, orientation: .up)
        }
        if var depth = planes.depth {
            depth.map = upright(depth.map, like: image, orientation: orientation)
            if let c = depth.calibration {
                depth.calibration = CalibrationOrientation.upright(c, orientation: orientation, uprightWidth: image.width, uprightHeight: image.height)
            }
            photo.depth = depth
        }
        photo.mattes = planes.mattes.map { Matte(kind: $0.kind, plane: upright($0.plane, like: image, orientation: orientation)) }
        photo.auxiliary = planes.listed
        return photo
    }

    /// What the auxiliary images hold, before alignment to the decoded primary.
    struct AuxiliaryPlanes {
        var depth: DepthData?
        var mattes: [Matte] = []
        var listed: [AuxiliaryImageInfo] = []
    }

    /// Decodes depth and every matte by URN; lists the rest (HDR gain maps are listed, never applied).
    static func readAuxiliary(_ primary: HeifHandle, ids: [heif_item_id], limits: DecodeLimits) throws -> AuxiliaryPlanes {
        let limits = limits.auxiliary
        var planes = AuxiliaryPlanes()
        let depthIDs = Set(primary.depthIDs())
        for id in ids {
            let aux = try primary.auxiliaryHandle(id)
            let urn = aux.auxiliaryType() ?? ""
            var kind = AuxiliaryKind(urn: urn)
            if depthIDs.contains(id) { kind = .depth }
            switch kind {
            case .depth:
                guard planes.depth == nil else { continue }
                try limits.check(width: aux.width, height: aux.height, what: "the depth map")
                planes.depth = try readDepth(aux, id: id, primary: primary)
            case .matte(let matteKind):
                guard !planes.mattes.contains(where: { $0.kind == matteKind }) else { continue }
                try limits.check(width: aux.width, height: aux.height, what: "the \(matteKind.rawValue) matte")
                let (values, w, h) = try decodeGray(aux, what: "the \(matteKind.rawValue) matte")
                let scale = 1 / Float(values.maxValue)
                let plane = FloatPlane(width: w, height: h, channels: 1, samples: values.samples.map { Float($0) * scale })
                planes.mattes.append(Matte(kind: matteKind, plane: plane))
            case .hdrGainMap, .alpha, .other:
                planes.listed.append(AuxiliaryImageInfo(kind: kind.name, urn: urn, width: aux.width, height: aux.height))
            }
        }
        return planes
    }

    /// Carries the primary decode's outcome back from its thread (written once, read after `wait`).
    final class ResultBox: @unchecked Sendable {
        var result: Result<RGBImage8, any Error>?
    }

    /// A closure handed to Dispatch whose captures (libheif owners) are used by that one thread only.
    struct UncheckedJob: @unchecked Sendable {
        let run: () -> Void
    }

    /// The primary image as tight 8-bit RGB: one copy, straight from libheif's plane.
    static func decodeRGB(_ handle: HeifHandle) throws -> RGBImage8 {
        let decoded = try handle.decode(colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGB, eightBit: true, what: "the image")
        let p = try decoded.plane(heif_channel_interleaved)
        let rowBytes = p.width * 3
        guard p.stride >= rowBytes else { throw PhotoError.corrupt("libheif returned a short row") }
        let samples = [UInt8](unsafeUninitializedCapacity: rowBytes * p.height) { out, count in
            guard let dst = out.baseAddress else { count = 0; return }
            if p.stride == rowBytes {
                dst.update(from: p.data, count: rowBytes * p.height)
            } else {
                for y in 0..<p.height { (dst + y * rowBytes).update(from: p.data + y * p.stride, count: rowBytes) }
            }
            count = rowBytes * p.height
        }
        return RGBImage8(width: p.width, height: p.height, channels: 3, samples: samples)
    }

    struct StoredValues {
        var samples: [UInt16]
        var maxValue: Int
    }

    /// A monochrome auxiliary image's luma samples, 8-bit or wider.
    static func decodeGray(_ handle: HeifHandle, what: String) throws -> (StoredValues, Int, Int) {
        let decoded = try handle.decode(colorspace: heif_colorspace_monochrome, chroma: heif_chroma_monochrome, what: what)
        let p = try decoded.plane(heif_channel_Y)
        var samples = [UInt16](repeating: 0, count: p.width * p.height)
        let bits = max(1, min(p.bits, 16))
        if bits <= 8 {
            guard p.stride >= p.width else { throw PhotoError.corrupt("libheif returned a short row") }
            for y in 0..<p.height {
                let row = p.data + y * p.stride
                for x in 0..<p.width { samples[y * p.width + x] = UInt16(row[x]) }
            }
        } else {
            guard p.stride >= p.width * 2 else { throw PhotoError.corrupt("libheif returned a short row") }
            for y in 0..<p.height {
                let row = UnsafeRawPointer(p.data + y * p.stride)
                for x in 0..<p.width { samples[y * p.width + x] = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self)) }
            }
        }
        return (StoredValues(samples: samples, maxValue: (1 << bits) - 1), p.width, p.height)
    }

    /// Depth from an auxiliary image: Apple's XMP (on the depth handle) first, else HEIF's depth representation info.
    static func readDepth(_ aux: HeifHandle, id: heif_item_id, primary: HeifHandle) throws -> DepthData {
        let (stored, w, h) = try decodeGray(aux, what: "the depth map")
        var metadata = AppleDepthMetadata()
        if let xmpText = aux.xmpPackets().first {
            metadata = try AppleDepthMetadata(xmp: try XMPDocument(xmpText))
        }
        // Apple's IntMaxValue is 255 for 8-bit maps; wider maps use their own range unless the XMP says so.
        if stored.maxValue != 255, metadata.intMax == 255 { metadata.intMax = Double(stored.maxValue) }
        var info: UnsafePointer<heif_depth_representation_info>?
        var inverseZ: (near: Double, far: Double)?
        if heif_image_handle_get_depth_image_representation_info(primary.raw, id, &info) != 0, let info {
            defer { heif_depth_representation_info_free(info) }
            let r = info.pointee
            let type = r.depth_representation_type
            if metadata.kind == nil {
                if type == heif_depth_representation_type_uniform_Z { metadata.kind = .depth }
                if type == heif_depth_representation_type_uniform_disparity { metadata.kind = .disparity }
            }
            if metadata.floatMin == nil, r.has_d_min != 0 { metadata.floatMin = r.d_min }
            if metadata.floatMax == nil, r.has_d_max != 0 { metadata.floatMax = r.d_max }
            if type == heif_depth_representation_type_uniform_inverse_Z, metadata.floatMin == nil,
               r.has_z_near != 0, r.has_z_far != 0, r.z_near > 0, r.z_far > r.z_near {
                inverseZ = (r.z_near, r.z_far)
            }
        }
        if let (near, far) = inverseZ {
            // Uniform inverse Z: stored 0 is the far plane, the top value the near plane; that is disparity.
            metadata.kind = .disparity
            metadata.floatMin = 1 / far
            metadata.floatMax = 1 / near
        }
        let values = metadata.floats(fromStored: stored.samples)
        let map = FloatPlane(width: w, height: h, channels: 1, samples: values)
        let depth = DepthData(kind: metadata.kind ?? .disparity, map: map, accuracy: metadata.accuracy ?? .relative,
                              isFiltered: metadata.isFiltered ?? false, quality: metadata.quality, calibration: metadata.calibration)
        guard depth.range != nil else { throw PhotoError.depthAllHoles }
        return depth
    }

    /// Turns an auxiliary plane upright when libheif left it in sensor orientation.
    ///
    /// Auxiliary items usually carry the primary's `irot`, so libheif turns them too. When a plane comes
    /// out with its axes swapped against the upright image, it was stored without the transform, and the
    /// primary's EXIF orientation (the same quarter turn) aligns it.
    static func upright(_ plane: FloatPlane, like image: RGBImage8, orientation: Orientation) -> FloatPlane {
        guard orientation.swapsAxes, plane.width != plane.height, image.width != image.height else { return plane }
        let planePortrait = plane.height > plane.width, imagePortrait = image.height > image.width
        return planePortrait == imagePortrait ? plane : plane.upright(orientation)
    }
}
