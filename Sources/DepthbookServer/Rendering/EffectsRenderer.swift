import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookMessages
import Foundation

/// The studio's renderer over one photo: DepthbookEffects' `NotebookRenderer` for pixels, the codecs for
/// JPEG/PNG/GIF. One per open photo, shared by every session on it (the renderer and its cache are Sendable),
/// so twenty sessions on one sample share one cache of intermediates.
final class EffectsRenderer: PhotoRenderer {
    private let notebookRenderer: NotebookRenderer
    private let photo: Photo
    /// The learned person matte is being made for this photo (its renderer is replaced when it comes).
    private let awaitsPersonMatte: Bool
    /// JPEG quality of previews and crops: what the page shows while you work.
    static let previewQuality = 85

    init(photo: Photo, cacheBytes: Int, cacheBudget: CacheBudget? = nil, uploads: (any UploadedImages)? = nil,
         awaitsPersonMatte: Bool = false) {
        self.photo = photo
        self.awaitsPersonMatte = awaitsPersonMatte
        notebookRenderer = NotebookRenderer(photo: photo, cacheBytes: cacheBytes, cacheBudget: cacheBudget, uploads: uploads)
    }

    func render(notebook: CheckedNotebook, cell: String, target: CellRenderRequest,
                isCancelled: @escaping @Sendable () -> Bool) throws -> RenderedFrame {
        let rendered = try whileMatteComes { try notebookRenderer.render(notebook: notebook, cell: cell, request: target, isCancelled: isCancelled) }
        let jpeg = try JPEGEncoder.encode(rendered.pixels, quality: Self.previewQuality, threads: RenderContext.defaultThreads)
        var frame = RenderedFrame(jpeg: jpeg, width: rendered.pixels.width, height: rendered.pixels.height,
                                  cacheHits: rendered.cacheHits, cacheMisses: rendered.cacheMisses)
        frame.chosen = rendered.chosen
        frame.notes = rendered.notes
        return frame
    }

    func prepare(notebook: CheckedNotebook, cell: String, target: CellRenderRequest,
                 isCancelled: @escaping @Sendable () -> Bool) throws {
        _ = try whileMatteComes { try notebookRenderer.render(notebook: notebook, cell: cell, request: target, isCancelled: isCancelled) }
    }

    func histogram(notebook: CheckedNotebook, reference: String, bins: Int,
                   isCancelled: @escaping @Sendable () -> Bool) throws -> HistogramReply {
        try whileMatteComes { HistogramResult(try notebookRenderer.histogram(notebook: notebook, reference: reference, bins: bins, isCancelled: isCancelled)) }
    }

    /// Planes a photo without depth gets from the person matte (its depth is estimated from it).
    static let planesFromPersonMatte: Set<String> = ["photo.disparity", "photo.depth", "photo.subject", "photo.personMatte"]

    /// While the matte is being made, a cell that needs what it brings says it is coming, not that the photo
    /// has none: the page renders every cell again when the photo with the matte arrives.
    private func whileMatteComes<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch EffectError.missingPlane(let plane) where awaitsPersonMatte && Self.planesFromPersonMatte.contains(plane) {
            throw EffectError.badRequest("\(plane) is coming: the learned person matte is being made (about a second), and this cell renders when it is ready")
        }
    }

    func export(notebook: CheckedNotebook, export: StudioRequest.Export,
                progress: @escaping @Sendable (Double) -> Void,
                isCancelled: @escaping @Sendable () -> Bool) throws -> ExportedFile {
        let cell = export.cell, format = export.format
        if format == .gif || format == .mp4 {
            return try loop(notebook: notebook, export: export, progress: progress, isCancelled: isCancelled)
        }
        if format == .png {
            let rendered = try whileMatteComes {
                try notebookRenderer.render(notebook: notebook, cell: cell, request: CellRenderRequest(width: photo.width), isCancelled: isCancelled)
            }
            progress(0.7)
            // A mask or matte exports as one grey channel; anything else as the RGB the page shows.
            return ExportedFile(bytes: try PNGCodec.encode(rendered.pixels), fileExtension: "png")
        }
        // The full-resolution result carries the photo's depth and mattes, moved as the recipe moved the image,
        // and its recipe.
        let exported = try whileMatteComes { try notebookRenderer.exportedPhoto(notebook: notebook, cell: cell, isCancelled: isCancelled) }
        progress(0.7)
        let bytes = try PhotoWriter.jpegWithDepth(exported.photo, quality: 92, extraXMP: try RecipeXMP.packet(notebook: notebook.notebook, cell: cell))
        return ExportedFile(bytes: bytes, fileExtension: "jpg")
    }

    /// Hundredths of a second per GIF frame: the pace `depthbook wiggle` uses.
    static let gifDelay = 8
    /// Frames of a GIF loop its palette is taken from.
    static let paletteFrames = 4

    /// An animated cell's loop as a looping GIF or an H.264 MP4 at the same pace; rendering the frames is
    /// most of the work, so each one reports progress (to 0.9) and encoding the rest. A still cell is refused
    /// (`EffectError.notAnimated`).
    private func loop(notebook: CheckedNotebook, export: StudioRequest.Export,
                      progress: @escaping @Sendable (Double) -> Void,
                      isCancelled: @escaping @Sendable () -> Bool) throws -> ExportedFile {
        let count = export.frameCount
        if export.format == .mp4 {
            // Frames go to the encoder as they are rendered: one in memory at a time, whatever the length.
            // Played once a video runs its frames once; the loop is long enough to see, like the GIF's.
            let fps = 100 / Self.gifDelay
            let cache = NotebookRenderer.loopCache()
            let bytes = try MP4Encoder.encode(frameCount: count, framesPerSecond: fps) { k in
                let image = try notebookRenderer.loopFrame(notebook: notebook, cell: export.cell, width: export.frameWidth,
                                                           count: count, index: k, isCancelled: isCancelled, cache: cache)
                progress(0.95 * Double(k + 1) / Double(count))
                return image
            }
            return ExportedFile(bytes: bytes, fileExtension: "mp4")
        }
        // The palette from a few frames spread over the loop, then every frame rendered, written and let go: the
        // whole loop in memory was 1.1 GB at 120 × 2048 px (a 1.5 GB peak, over the budget).
        let cache = NotebookRenderer.loopCache()
        func render(_ k: Int) throws -> RGBImage8 {
            try notebookRenderer.loopFrame(notebook: notebook, cell: export.cell, width: export.frameWidth, count: count,
                                           index: k, isCancelled: isCancelled, cache: cache)
        }
        let sampled = Array(stride(from: 0, to: count, by: max(1, count / Self.paletteFrames)))
        var kept = [Int: RGBImage8]()
        for k in sampled { kept[k] = try render(k) }
        let first = kept[0]!
        let bytes = try GIFEncoder.encode(count: count, width: first.width, height: first.height, paletteFrom: sampled.map { kept[$0]! },
                                          delayCentiseconds: Self.gifDelay) { k in
            defer { progress(0.95 * Double(k + 1) / Double(count)) }
            if let image = kept.removeValue(forKey: k) { return image }
            return try render(k)
        }
        return ExportedFile(bytes: bytes, fileExtension: "gif")
    }
}

/// The notebook a result came from, as XMP in Depthbook's namespace, so the file can restore its recipe.
enum RecipeXMP {
    static let namespace = "http://ns.depthbook.dev/1.0/"

    static func packet(notebook: Notebook, cell: String) throws -> String {
        let json = String(decoding: try NotebookIdentity.canonicalJSON(notebook), as: UTF8.self)
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:depthbook="\(namespace)" depthbook:Cell="\(escape(cell))" \
            depthbook:Notebook="\(escape(json))"/></rdf:RDF></x:xmpmeta>
            """
    }

    static func escape(_ text: String) -> String { XMLEscape.escaped(text, attribute: true) }
}
