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
        let map = FloatPlane(width: stored.width, height: stored.height, channels: 1, samples: values).upright(orientation)
        let depth = DepthData(kind: metadata.kind ?? .disparity, map: map, accuracy: metadata.accuracy ?? .relative,
                              isFiltered: metadata.isFiltered ?? false, quality: metadata.quality, calibration: metadata.calibration)
        guard depth.range != nil else { throw PhotoError.depthAllHoles }
        return depth
    }
}
