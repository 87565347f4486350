import DepthbookEngine

/// Uploaded backgrounds already decoded and resized to a photo's shape, so Backdrop makes each one once, not
/// per render.
final class BackgroundCache: Sendable {
    static let shared = BackgroundCache()
    /// Most bytes of backgrounds kept (every photo and session shares them).
    static let byteLimit = 80 << 20
    private let images = Locked([String: RGBImage8]())

    /// The image under `key`, made by `make` on a miss (outside the lock: making one may take a while).
    func image(key: String, make: () throws -> RGBImage8) throws -> RGBImage8 {
        if let hit = images.withLock({ $0[key] }) { return hit }
        let image = try make()
        images.withLock { all in
            // Made at a photo's size, each is up to 36 MB at 12 MP: a few, bounded in bytes, not a count.
            if all.values.reduce(image.samples.count, { $0 + $1.samples.count }) > Self.byteLimit { all.removeAll() }
            all[key] = image
        }
        return image
    }
}
