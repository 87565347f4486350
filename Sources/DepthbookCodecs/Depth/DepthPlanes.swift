import DepthbookEngine

/// Conversions from decoded integer planes to the model's float planes.
enum DepthPlanes {
    /// An 8-bit matte as linear 0...1 floats (Apple stores mattes linearly).
    static func unitPlane(_ plane: Raster<UInt8>) -> FloatPlane {
        let scale: Float = 1 / 255
        return FloatPlane(width: plane.width, height: plane.height, channels: 1, samples: plane.samples.map { Float($0) * scale })
    }

    /// Builds `DepthData` from stored integers with Apple's mapping, refusing an all-hole map.
    static func appleDepth(stored: Raster<UInt8>, metadata: AppleDepthMetadata, orientation: Orientation) throws -> DepthData {
        let values = metadata.floats(fromStored: stored.samples.map { UInt16($0) })
        return try appleDepth(values: values, width: stored.width, height: stored.height, metadata: metadata, orientation: orientation)
    }

    /// Builds `DepthData` from a lossless JPEG's first component: half floats when the XMP's stored format
    /// says so (non-finite values are holes), otherwise integers mapped as `AppleDepthMetadata.lossless` says.
    static func appleDepth(lossless image: LosslessJPEGImage, metadata: AppleDepthMetadata, orientation: Orientation) throws -> DepthData {
        let stored = image.component(0)
        let values: [Float]
        if image.precision == 16, metadata.storesHalfFloats {
            values = stored.map { bits in
                let v = float(halfBits: bits)
                return v.isFinite ? v : .nan
            }
        } else {
            values = metadata.lossless(precision: image.precision).floats(fromStored: stored)
        }
        return try appleDepth(values: values, width: image.width, height: image.height, metadata: metadata, orientation: orientation)
    }

    private static func appleDepth(values: [Float], width: Int, height: Int, metadata: AppleDepthMetadata,
                                   orientation: Orientation) throws -> DepthData {
        let map = FloatPlane(width: width, height: height, channels: 1, samples: values).upright(orientation)
        let depth = DepthData(kind: metadata.kind ?? .disparity, map: map, accuracy: metadata.accuracy ?? .relative,
                              isFiltered: metadata.isFiltered ?? false, quality: metadata.quality, calibration: metadata.calibration)
        guard depth.range != nil else { throw PhotoError.depthAllHoles }
        return depth
    }

    /// An IEEE 754 half float's value (Float16 is not available on every platform Swift builds for).
    static func float(halfBits h: UInt16) -> Float {
        let sign: UInt32 = UInt32(h >> 15) << 31
        let exponent = Int((h >> 10) & 0x1F), fraction = UInt32(h & 0x3FF)
        switch exponent {
        case 0:  // zero or subnormal: fraction × 2^-24
            let magnitude = Float(fraction) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 31:  // infinity or NaN
            return Float(bitPattern: sign | 0x7F80_0000 | fraction << 13)
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | fraction << 13)
        }
    }

    /// A grey JPEG as 0...1, for depth maps that come without Apple's mapping (Google's, a user's own file):
    /// a lossless (SOF3) stream at its own precision (value / (2^bits − 1)), any other through libjpeg-turbo.
    static func jpegUnitPlane(_ stream: [UInt8], limits: DecodeLimits, what: String) throws -> FloatPlane {
        if try JPEGStructure(stream).isLossless {
            return try LosslessJPEGDecoder.decode(stream, limits: limits, what: what).firstComponentUnit()
        }
        return unitPlane(try TurboJPEGDecoder.decode(stream[...], gray: true, limits: limits, what: what))
    }
}
