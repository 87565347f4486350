/// Renders recipe nodes: pulls only the regions each stage needs, reuses cached results, fuses chains of
/// pointwise filters row by row, and checks for cancellation between stages.
///
/// Output never depends on the thread count or on how a frame is split into regions: every filter computes
/// each pixel from a fixed neighbourhood with the frame edge clamped, whatever band or tile it falls in.
public struct Evaluator: Sendable {
    public let context: RenderContext
    /// Whether the node asked for is kept in the cache with its inputs. A loop's frames are not: frame k is
    /// never asked for again, and keeping it would push out the inputs every frame shares.
    public let keepsResult: Bool

    public init(context: RenderContext = RenderContext(), keepsResult: Bool = true) {
        self.context = context
        self.keepsResult = keepsResult
    }

    /// Renders `node` for `target` as float samples.
    public func render(_ node: Node, _ target: RenderTarget) throws -> PixelBuffer {
        guard !target.size.isEmpty, !target.region.isEmpty else {
            throw RenderError.badTarget("empty size or region \(target)")
        }
        return try evaluate(node, target, keep: keepsResult)
    }

    /// Renders `node` for `target` as 8-bit samples (RGB for images, 1 channel for planes), clamping to 0...1
    /// and rounding. A pointwise root is fused straight into the bytes with no float image in between.
    public func renderBytes(_ node: Node, _ target: RenderTarget) throws -> Raster<UInt8> {
        guard !target.size.isEmpty, !target.region.isEmpty else {
            throw RenderError.badTarget("empty size or region \(target)")
        }
        if node.filter is any PointwiseFilter, cachedBuffer(node, target) == nil {
            return try FusedPointwise(root: node, target: target, evaluator: self).runToBytes()
        }
        let buffer = try evaluate(node, target, keep: keepsResult)
        var bytes = [UInt8](repeating: 0, count: buffer.samples.count)
        buffer.samples.withUnsafeBufferPointer { src in
            bytes.withUnsafeMutableBufferPointer { dst in
                let rowLength = buffer.width * buffer.channels
                let s = src.baseAddress!, d = dst.baseAddress!
                context.parallelRows(buffer.height, samplesPerRow: rowLength) { rows in
                    quantize(s + rows.lowerBound * rowLength, d + rows.lowerBound * rowLength, rows.count * rowLength)
                }
            }
        }
        try context.checkCancelled()
        return Raster(width: buffer.width, height: buffer.height, channels: buffer.channels, samples: bytes)
    }

    /// A cached result for (node, target), counted as a hit, or nil.
    func cachedBuffer(_ node: Node, _ target: RenderTarget) -> PixelBuffer? {
        guard let cache = context.cache, let hit = cache.lookup(node.key, target) else { return nil }
        context.countHit()
        return hit
    }

    /// Renders one node (cached, whole-frame when the filter asks, fused when pointwise); `keep` stores it.
    func evaluate(_ node: Node, _ target: RenderTarget, keep: Bool = true) throws -> PixelBuffer {
        try context.checkCancelled()
        if let hit = cachedBuffer(node, target) { return hit }
        let filter = node.filter
        if filter.rendersWholeFrame(for: target, extent: node.extent), target.region != target.frame {
            let whole = try evaluate(node, RenderTarget(size: target.size), keep: keep)
            return whole.cropped(to: target.region)
        }
        let output: PixelBuffer
        if filter is any PointwiseFilter {
            output = try FusedPointwise(root: node, target: target, evaluator: self).runToFloats()
        } else {
            let targets = filter.inputTargets(for: target, extent: node.extent, inputExtents: node.inputs.map(\.extent))
            let request = RenderRequest(target: target, extent: node.extent, inputTargets: targets,
                                        inputExtents: node.inputs.map(\.extent))
            if let streaming = filter as? any RowStreamingFilter, streaming.canStream(request),
               let rows = try streamedInput(of: node, target: targets[0]) {
                try context.checkCancelled()
                output = try streaming.render(streaming: rows, request, context: context)
            } else {
                var buffers: [PixelBuffer] = []
                buffers.reserveCapacity(node.inputs.count)
                for (input, inputTarget) in zip(node.inputs, targets) {
                    buffers.append(try evaluate(input, inputTarget))
                }
                try context.checkCancelled()
                output = try filter.render(buffers, request, context: context)
            }
        }
        // A stage cancelled part-way skipped rows: its output is never kept nor used.
        try context.checkCancelled()
        context.countMiss()
        // A photo's plane reduced to a preview's size is read by every render of the photo: pinned (`RenderCache`),
        // and so is a stage made from the photo alone that says so. Not at its own size (an export's or a crop's
        // float copy of the whole photo, read once).
        if keep {
            let pinned = (filter is PhotoSource || node.pinnedInCache) && target.size.width < node.extent.width
            context.cache?.store(node.key, size: target.size, output, pinned: pinned)
        }
        return output
    }
}

/// Clamps floats to 0...1 and rounds them to bytes (x·255 + 0.5, truncated); NaN gives 0.
///
/// Written without a checked float-to-integer conversion so the loop vectorises: adding 2²³ rounds to
/// an integer (to nearest), one comparison turns that into truncation, and the low mantissa bits are the byte.
@inline(__always)
func quantize(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<UInt8>, _ count: Int) {
    let magic: Float = 8_388_608
    for i in 0..<count {
        let x = src[i]
        let c: Float = x > 0 ? (x < 1 ? x : 1) : 0
        let s = c * 255 + 0.5
        let r = (s + magic) - magic
        let t = r > s ? r - 1 : r
        dst[i] = UInt8(truncatingIfNeeded: (t + magic).bitPattern)
    }
}
