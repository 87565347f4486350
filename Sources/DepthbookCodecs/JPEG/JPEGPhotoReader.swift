import DepthbookEngine

/// Reads a JPEG and every depth plane it carries: Apple MPF images, Google GDepth, Android Dynamic Depth.
enum JPEGPhotoReader {
    static func read(_ bytes: [UInt8], limits: DecodeLimits) throws -> Photo {
        let primary = try JPEGStructure(bytes)
        try limits.check(width: primary.width, height: primary.height, what: "the image")
        let exif = primary.exif
        let orientation = exif?.orientation ?? .up
        let image = try TurboJPEGDecoder.decode(bytes[...], gray: false, limits: limits, what: "the image").upright(orientation)

        let xmpText = primary.xmp
        var documents: [XMPDocument] = []
        if let xmpText { documents.append(try XMPDocument(xmpText)) }
        if let guid = documents.first?.text(XMPNamespace.xmpNote, "HasExtendedXMP"), let extended = try primary.extendedXMP(guid: guid, limits: limits) {
            documents.append(try XMPDocument(extended))
        }

        let icc = primary.iccProfile
        var photo = Photo(image: image, orientation: orientation, colorSpace: ICCProfile.colorSpaceName(icc),
                          exif: exif?.bytes, xmp: xmpText)
        photo.iccProfile = icc
        if let main = documents.first {
            photo.faces = try FaceRegionsXMP.read(main, uprightWidth: image.width, uprightHeight: image.height, orientation: orientation)
        }
        if let mpf = primary.mpf {
            try readMPFImages(bytes, mpf: mpf, orientation: orientation, limits: limits, into: &photo)
        }
        if photo.depth == nil, let depth = try GDepthReader.depth(in: documents, orientation: orientation, limits: limits) {
            photo.depth = depth
        }
        if let original = GDepthReader.originalImage(in: documents) { photo.auxiliary.append(original) }
        if photo.depth == nil, let depth = try DynamicDepthReader.depth(in: documents, file: bytes, orientation: orientation, limits: limits) {
            photo.depth = depth
        }
        return photo
    }

    /// Decodes MPF images 2... as Apple lays them out: each a JPEG with XMP saying what it is.
    static func readMPFImages(_ bytes: [UInt8], mpf: (tiffOffset: Int, payload: ArraySlice<UInt8>), orientation: Orientation,
                              limits: DecodeLimits, into photo: inout Photo) throws {
        let limits = limits.auxiliary
        let index = try MPFIndex(payload: mpf.payload)
        for (number, entry) in index.entries.enumerated() where number > 0 {
            let start = mpf.tiffOffset + entry.offset
            guard entry.offset > 0, entry.size > 0, start < bytes.count else {
                throw PhotoError.truncated("MPF image \(number + 1) lies outside the file")
            }
            guard start + entry.size <= bytes.count else { throw PhotoError.truncated("MPF image \(number + 1) is cut short") }
            let stream = Array(bytes[start..<(start + entry.size)])
            let structure = try JPEGStructure(stream)
            let xmp = try structure.xmp.map { try XMPDocument($0) }
            let kind = xmp.flatMap { AuxiliaryKind(appleXMP: $0) } ?? .other("mpf")
            let (sw, sh) = orientation.uprightSize(width: structure.width, height: structure.height)
            switch kind {
            case .depth:
                guard photo.depth == nil, let xmp else { continue }
                let metadata = try AppleDepthMetadata(xmp: xmp)
                var depth: DepthData
                do {
                    if structure.isLossless {
                        // Apple stores unfiltered depth (with its holes) as 16-bit lossless JPEG, which
                        // libjpeg-turbo 2.1 cannot decode: Depthbook's own decoder reads it.
                        let lossless = try LosslessJPEGDecoder.decode(stream, limits: limits, what: "the depth map")
                        depth = try DepthPlanes.appleDepth(lossless: lossless, metadata: metadata, orientation: orientation)
                    } else {
                        let stored = try TurboJPEGDecoder.decode(stream[...], gray: true, limits: limits, what: "the depth map")
                        depth = try DepthPlanes.appleDepth(stored: stored, metadata: metadata, orientation: orientation)
                    }
                } catch PhotoError.unsupportedFormat {
                    // A JPEG variant neither decoder reads (hierarchical, subsampled lossless): the photo loads,
                    // with the depth listed but not used. Broken data stays an error, as for any plane.
                    photo.auxiliary.append(AuxiliaryImageInfo(kind: "depth", urn: nil, width: sw, height: sh))
                    continue
                }
                if let c = depth.calibration {
                    depth.calibration = CalibrationOrientation.upright(c, orientation: orientation, uprightWidth: photo.width, uprightHeight: photo.height)
                }
                photo.depth = depth
            case .matte(let matteKind):
                guard photo.matte(matteKind) == nil else { continue }
                let plane = try DepthPlanes.jpegUnitPlane(stream, limits: limits, what: "the \(matteKind.rawValue) matte")
                photo.mattes.append(Matte(kind: matteKind, plane: plane.upright(orientation)))
            case .hdrGainMap, .alpha, .other:
                // Listed, not used as planes: `Photo.auxiliary` is for what Depthbook carries but does not apply.
                photo.auxiliary.append(AuxiliaryImageInfo(kind: kind.name, urn: nil, width: sw, height: sh))
            }
        }
    }
}
