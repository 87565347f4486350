import DepthbookDocument
import DepthbookEngine
import DepthbookProtocol
import Foundation

/// Renders any cell of a notebook over one photo: the server keeps one per open photo, the command line one
/// per run. It owns the engine cache for that photo, so moving one slider recomputes only the nodes after it.
public final class NotebookRenderer: Sendable {
    public let photo: Photo
    let photoID: String
    private let cache: RenderCache
    private let statistics: StatisticsCache
    private let uploads: (any UploadedImages)?

    /// `cacheBytes` bounds the rendered intermediates kept between renders; `uploads` resolves parameters
    /// that name an uploaded image (none: such parameters are refused with a message).
    /// `cacheBudget`, when given, is shared with other photos' renderers: their caches together stay within it.
    public init(photo: Photo, cacheBytes: Int = 384 << 20, cacheBudget: CacheBudget? = nil, uploads: (any UploadedImages)? = nil) {
        self.photo = photo
        self.uploads = uploads
        self.photoID = NotebookRenderer.nextID()
        self.cache = RenderCache(byteLimit: cacheBytes, budget: cacheBudget)
        self.statistics = StatisticsCache(store: cache)
    }

    /// The effect catalog the page shows (`effects` request).
    public static var catalog: [EffectDescription] { EffectCatalog.descriptions }

    /// The catalog as the protocol's JSON (`{"effects": [...]}` holds this array).
    public static var catalogJSON: JSONValue {
        guard let data = try? JSONEncoder().encode(catalog),
              let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .array([]) }
        return value
    }

    /// Renders `cell` for `request`, stopping with `EffectError.cancelled` when `isCancelled` says so.
    /// `cache` is a loop's (`loopCache()`), replacing the photo's own for this render: a loop's frames keep their
    /// intermediates apart, so a long export neither fills the shared cache nor evicts what the previews use,
    /// and the frame itself is not kept (it never comes back).
    public func render(notebook: CheckedNotebook, cell: String, request: CellRenderRequest,
                       isCancelled: @escaping @Sendable () -> Bool = { false }, cache: RenderCache? = nil) throws -> RenderedCell {
        let target = try target(for: request)
        let evaluator = Evaluator(context: RenderContext(cache: cache ?? self.cache, isCancelled: isCancelled),
                                  keepsResult: cache == nil)
        do {
            var builder = RecipeBuilder(notebook: notebook, context: context(evaluator))
            let built = try builder.build(cell)
            let (display, kind) = try displayNode(built, evaluator)
            let pixels = try evaluator.renderBytes(display, target)
            return RenderedCell(pixels: pixels, cacheHits: evaluator.context.cacheHits,
                                cacheMisses: evaluator.context.cacheMisses, kind: kind,
                                chosen: built.chosen, notes: builder.notes.sorted())
        } catch let error as RenderError {
            throw EffectError(error)
        }
    }

    /// The engine recipe `render` evaluates for `cell` (its display node), built the same way: for tools that
    /// time the engine on a notebook's cells (`depthbook bench --pipelines F1,F2,F3`).
    public func recipe(notebook: CheckedNotebook, cell: String) throws -> Node {
        let evaluator = Evaluator(context: RenderContext(cache: cache))
        do {
            var builder = RecipeBuilder(notebook: notebook, context: context(evaluator))
            return try displayNode(try builder.build(cell), evaluator).0
        } catch let error as RenderError {
            throw EffectError(error)
        }
    }

    /// The loop of an animated step cell (`wiggle`): `count` frames `width` pixels wide, the effect's loop
    /// parameter at k/count so the loop closes, as `WiggleLoop` does for the command line. Rendering the cell
    /// itself (not the photo) keeps its inputs and parameters, and the cache shares everything but the last
    /// stage between frames. `frameDone(k)` is called after frame k (0-based), for progress.
    public func frames(notebook: CheckedNotebook, cell: String, width: Int, count: Int,
                       isCancelled: @escaping @Sendable () -> Bool = { false },
                       frameDone: (Int) -> Void = { _ in }) throws -> [RGBImage8] {
        var images = [RGBImage8]()
        try forEachFrame(notebook: notebook, cell: cell, width: width, count: count, isCancelled: isCancelled) { k, image in
            images.append(image)
            frameDone(k)
        }
        return images
    }

    /// The loop's frames one at a time, each handed to `body` and then let go.
    public func forEachFrame(notebook: CheckedNotebook, cell: String, width: Int, count: Int,
                             isCancelled: @escaping @Sendable () -> Bool = { false },
                             _ body: (Int, RGBImage8) throws -> Void) throws {
        let cache = Self.loopCache()
        for k in 0..<count {
            try body(k, try loopFrame(notebook: notebook, cell: cell, width: width, count: count, index: k,
                                      isCancelled: isCancelled, cache: cache))
        }
    }

    /// A cache for one loop's frames: what every frame shares (the inputs at the loop's size) stays, the
    /// frames' own intermediates come and go, and nothing of the photo's shared cache is touched.
    public static func loopCache() -> RenderCache { RenderCache(byteLimit: 64 << 20) }

    /// Frame `index` of the `count` frames of an animated cell's loop (its loop parameter at index / count),
    /// so a long loop at a large width can be made and used one frame at a time.
    public func loopFrame(notebook: CheckedNotebook, cell: String, width: Int, count: Int, index frame: Int,
                          isCancelled: @escaping @Sendable () -> Bool = { false }, cache: RenderCache? = nil) throws -> RGBImage8 {
        let frames = Limits.studio.exportFrames
        guard frames.contains(count) else { throw EffectError.badRequest("the loop needs \(frames) frames, not \(count)") }
        guard let step = notebook.notebook.cell(cell) else { throw EffectError.unknownCell(cell) }
        guard step.kind == .step, let id = step.effect, let effect = EffectCatalog.effect(id),
              let loop = effect.description.loopParameter else { throw EffectError.notAnimated(cell) }
        if isCancelled() { throw EffectError.cancelled }
        let looped = notebook.looping(cell, loop, phase: Double(frame) / Double(count))
        return try render(notebook: looped, cell: cell, request: CellRenderRequest(width: width), isCancelled: isCancelled,
                          cache: cache).image
    }

    /// The histogram of a cell or plane as `EffectContext.measured` renders it (native, at most 1600 px wide). For a step that cuts at a threshold it is the
    /// histogram of what was cut (its plane input), with the cut as the marker.
    public func histogram(notebook: CheckedNotebook, reference: String, bins: Int,
                          isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> CellHistogram {
        let allowed = Limits.studio.histogramBins
        guard allowed.contains(bins) else { throw EffectError.badRequest("bins must be \(allowed), got \(bins)") }
        let evaluator = Evaluator(context: RenderContext(cache: cache, isCancelled: isCancelled))
        do {
            let context = context(evaluator)
            var builder = RecipeBuilder(notebook: notebook, context: context)
            let built = try builder.build(reference)
            var source = built.node
            if built.marker != nil, let cell = notebook.notebook.cell(reference), cell.kind == .step {
                let (effect, inputs) = try builder.stepInputs(cell)
                if let slot = effect.description.inputs.first(where: { $0.kind == .plane }), let input = inputs.optional(slot.name) {
                    source = input.node
                }
            }
            var samples = try context.measured(source).samples
            if source.kind == .image { samples = Self.luma(samples) }
            let h = Statistics.histogram(samples, bins: bins)
            return CellHistogram(bins: h.bins, min: h.min, max: h.max, marker: built.marker, holes: h.holes)
        } catch let error as RenderError {
            throw EffectError(error)
        }
    }

    func context(_ evaluator: Evaluator) -> EffectContext {
        EffectContext(photo: photo, photoID: photoID, evaluator: evaluator, statistics: statistics, uploads: uploads)
    }

    private func target(for request: CellRenderRequest) throws(EffectError) -> RenderTarget {
        let full = PixelSize(width: photo.width, height: photo.height)
        if let r = request.region {
            let region = PixelRect(x: r.x, y: r.y, width: r.width, height: r.height).intersection(PixelRect(full))
            guard r.width > 0, r.height > 0, !region.isEmpty else {
                throw .badRequest("the crop (\(r.x), \(r.y), \(r.width)×\(r.height)) is outside the \(full) image")
            }
            return RenderTarget(size: full, region: region)
        }
        let widths = Limits.studio.renderWidth
        guard widths.contains(request.width) else { throw .badRequest("width must be \(widths) px, got \(request.width)") }
        let height = max(1, Int((Double(request.width) * Double(photo.height) / Double(max(1, photo.width))).rounded()))
        return RenderTarget(size: PixelSize(width: request.width, height: height))
    }

    /// What the page sees of a node: images as they are, masks grey, depth through the colour map scaled to
    /// the plane's own range (near red, far blue).
    private func displayNode(_ built: BuiltNode, _ evaluator: Evaluator) throws -> (Node, RenderedCell.Kind) {
        switch built.role {
        case .image: return (built.node, .image)
        case .mask: return (built.node, .mask)
        case .depth(let kind):
            // The photo's own range (converted to the plane's kind): no need to render the plane to scale it.
            let range = photo.depth?.converted(to: kind).range ?? 0...1
            let (near, far) = kind == .disparity ? (range.upperBound, range.lowerBound) : (range.lowerBound, range.upperBound)
            return (try built.node.applying(DepthColorMap(near: near, far: far)), .depth)
        }
    }

    /// A grey plane as RGB.
    static func grey(_ plane: Raster<UInt8>) -> RGBImage8 {
        let count = plane.samples.count
        let out = [UInt8](unsafeUninitializedCapacity: count * 3) { rgb, initialized in
            plane.samples.withUnsafeBufferPointer { src in
                for i in 0..<count {
                    let v = src[i]
                    rgb[i * 3] = v
                    rgb[i * 3 + 1] = v
                    rgb[i * 3 + 2] = v
                }
            }
            initialized = count * 3
        }
        return RGBImage8(width: plane.width, height: plane.height, channels: 3, samples: out)
    }

    private static func luma(_ rgb: [Float]) -> [Float] {
        stride(from: 0, to: rgb.count - 2, by: 3).map { Luma.rec601(rgb[$0], rgb[$0 + 1], rgb[$0 + 2]) }
    }

    private static let counter = Locked(0)

    /// A per-renderer identity for cache keys: each renderer has its own cache, so uniqueness is all it needs.
    private static func nextID() -> String {
        let n = counter.withLock { c in
            c += 1
            return c
        }
        return "renderer-\(n)"
    }
}
