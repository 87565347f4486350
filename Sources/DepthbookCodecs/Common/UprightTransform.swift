import DepthbookEngine

/// Turns decoded rasters upright fast: the same result as the engine's `Raster.applying(_:)`, written with
/// raw pointers and a per-channel-count inner loop because phones store most JPEGs sideways (orientation 6)
/// and a 12 MP image passes through here on every load.
enum UprightTransform {
    static func apply<Element: Sendable & Equatable>(_ raster: Raster<Element>, _ orientation: Orientation) -> Raster<Element> {
        if orientation == .up || raster.samples.isEmpty { return raster }
        let w = raster.width, h = raster.height, c = raster.channels
        let (uw, uh) = orientation.uprightSize(width: w, height: h)
        // Where upright pixel (x, y) comes from: start + x * dx + y * dy, in pixels of the stored raster.
        let (start, dx, dy): (Int, Int, Int)
        switch orientation {
        case .up: (start, dx, dy) = (0, 1, w)
        case .upMirrored: (start, dx, dy) = (w - 1, -1, w)
        case .down: (start, dx, dy) = ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: (start, dx, dy) = ((h - 1) * w, 1, -w)
        case .leftMirrored: (start, dx, dy) = (0, w, 1)
        case .right: (start, dx, dy) = ((h - 1) * w, -w, 1)
        case .rightMirrored: (start, dx, dy) = ((h - 1) * w + w - 1, -w, -1)
        case .left: (start, dx, dy) = (w - 1, w, -1)
        }
        // Tiles of 64×64 keep both the rows read and the rows written in cache when a quarter turn makes
        // the reads walk down columns (measured: 12 MP RGB turned in well under the untiled time).
        let tile = 64
        let samples = [Element](unsafeUninitializedCapacity: raster.samples.count) { out, count in
            raster.samples.withUnsafeBufferPointer { src in
                guard let s = src.baseAddress, let d = out.baseAddress else { return }
                for ty in stride(from: 0, to: uh, by: tile) {
                    for tx in stride(from: 0, to: uw, by: tile) {
                        let xEnd = min(tx + tile, uw)
                        for y in ty..<min(ty + tile, uh) {
                            var p = start + y * dy + tx * dx
                            var o = (y * uw + tx) * c
                            switch c {
                            case 1:
                                for _ in tx..<xEnd { (d + o).initialize(to: s[p]); o += 1; p += dx }
                            case 3:
                                for _ in tx..<xEnd {
                                    let q = p * 3
                                    (d + o).initialize(to: s[q]); (d + o + 1).initialize(to: s[q + 1]); (d + o + 2).initialize(to: s[q + 2])
                                    o += 3; p += dx
                                }
                            default:
                                for _ in tx..<xEnd {
                                    for k in 0..<c { (d + o + k).initialize(to: s[p * c + k]) }
                                    o += c; p += dx
                                }
                            }
                        }
                    }
                }
            }
            count = raster.samples.count
        }
        return Raster(width: uw, height: uh, channels: c, samples: samples)
    }
}

extension Raster {
    /// This raster turned upright (see `UprightTransform`).
    func upright(_ orientation: Orientation) -> Raster { UprightTransform.apply(self, orientation) }
}
