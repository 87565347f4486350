import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookMessages

/// A rendered preview or crop, already JPEG-encoded, with the engine's cache statistics.
public struct RenderedFrame: Sendable {
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int
    public var cacheHits: Int
    public var cacheMisses: Int
    /// Parameter values picked from the photo for what the cell left out, and notes about the photo.
    public var chosen: [String: ParameterValue] = [:]
    public var notes: [String] = []

    public init(jpeg: [UInt8], width: Int, height: Int, cacheHits: Int, cacheMisses: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.cacheHits = cacheHits
        self.cacheMisses = cacheMisses
    }
}

/// Histogram data the page draws (the page never sees pixels): the protocol's `histogram` result.
public typealias HistogramReply = HistogramResult

/// An exported file's bytes and the extension it is served with.
public struct ExportedFile: Sendable {
    public var bytes: [UInt8]
    public var fileExtension: String

    public init(bytes: [UInt8], fileExtension: String) {
        self.bytes = bytes
        self.fileExtension = fileExtension
    }
}

/// A decoded photo the sessions share, with the facts the page shows about it and the renderer over it.
public struct LoadedPhoto: Sendable {
    public var reference: PhotoReference
    public var photo: Photo
    /// `depthbook inspect --json` facts plus `"source"`.
    public var facts: JSONValue
    /// Shared by every session on this photo (so they share its cache).
    public var renderer: any PhotoRenderer
    /// The learned person matte is being made for this photo (`PhotoImprover`); its facts say so to the page.
    public var awaitsPersonMatte: Bool

    public init(reference: PhotoReference, photo: Photo, facts: JSONValue, renderer: any PhotoRenderer,
                awaitsPersonMatte: Bool = false) {
        self.reference = reference
        self.photo = photo
        self.facts = facts
        self.renderer = renderer
        self.awaitsPersonMatte = awaitsPersonMatte
    }

    /// The decoded planes' bytes: what keeping this photo in memory costs.
    public var byteCount: Int {
        let planes = (photo.depth.map { [$0.map] } ?? []) + photo.mattes.map(\.plane) + (photo.personMatte.map { [$0] } ?? [])
        return photo.image.samples.count + planes.reduce(0) { $0 + $1.samples.count * MemoryLayout<Float>.stride }
    }
}

/// A renderer over one photo. It must be safe to call from several threads (sessions share it); the pool
/// runs at most one job per session at a time.
extension StudioBackend {
    /// Bytes every open photo's render cache holds together (0 when the backend keeps none).
    public var cacheBytesHeld: Int { 0 }

    /// A backend without a person matte never leaves a photo awaiting one.
    public func withPersonMatte(_ loaded: LoadedPhoto) -> LoadedPhoto {
        var done = loaded
        done.awaitsPersonMatte = false
        return done
    }
}

public protocol PhotoRenderer: AnyObject, Sendable {
    func render(notebook: CheckedNotebook, cell: String, target: CellRenderRequest,
                isCancelled: @escaping @Sendable () -> Bool) throws -> RenderedFrame
    func histogram(notebook: CheckedNotebook, reference: String, bins: Int,
                   isCancelled: @escaping @Sendable () -> Bool) throws -> HistogramReply
    /// `export` names the cell and format (and, for GIF, the frame count and width).
    /// `isCancelled` is polled between frames and stages: an export nobody waits for stops.
    func export(notebook: CheckedNotebook, export: StudioRequest.Export,
                progress: @escaping @Sendable (Double) -> Void,
                isCancelled: @escaping @Sendable () -> Bool) throws -> ExportedFile
    /// Renders a cell for what it leaves in the caches, not for a frame: no JPEG is made.
    func prepare(notebook: CheckedNotebook, cell: String, target: CellRenderRequest,
                 isCancelled: @escaping @Sendable () -> Bool) throws
}

extension PhotoRenderer {
    /// A renderer without caches of its own to fill prepares by rendering.
    public func prepare(notebook: CheckedNotebook, cell: String, target: CellRenderRequest,
                        isCancelled: @escaping @Sendable () -> Bool) throws {
        _ = try render(notebook: notebook, cell: cell, target: target, isCancelled: isCancelled)
    }
}

/// What an upload turned out to be after sniffing and a full decode.
public struct InspectedUpload: Sendable {
    /// "jpg", "heic" or "png": the extension the stored file gets.
    public var fileExtension: String
    public var photo: Photo

    public init(fileExtension: String, photo: Photo) {
        self.fileExtension = fileExtension
        self.photo = photo
    }
}

/// Everything the server needs from the effects and codecs code, behind one seam so the transport, the
/// sessions and the store can be tested without pixels.
public protocol StudioBackend: Sendable {
    /// The effect catalog as the `effects` request returns it.
    func effectCatalog() -> JSONValue
    /// The bundled samples, generated into `dataDirectory` on first use.
    func samples() throws -> [SampleSummary]
    /// Decodes a photo a notebook refers to and makes its renderer (`.path` is refused: the server reads
    /// only its own files).
    func loadPhoto(_ reference: PhotoReference) throws -> LoadedPhoto
    /// A photo already decoded (an upload just checked) made ready as `loadPhoto` would make it.
    func prepare(_ photo: Photo, as reference: PhotoReference) -> LoadedPhoto
    /// What a photo that `awaitsPersonMatte` awaited, made (slow: the server runs it in the background): the
    /// photo with it, or without it and no longer awaiting it when it could not be made.
    func withPersonMatte(_ loaded: LoadedPhoto) -> LoadedPhoto
    /// Decodes an upload fully; throws a message a user understands when it is not a photo we read.
    func inspectUpload(_ bytes: [UInt8], fileExtension: String, depthMap: [UInt8]?, polarity: DepthMapPolarity) throws -> Photo
    /// `loaded` reduced for previews (`Photo.reducedForPreviews`), with a renderer and cache of its own; nil
    /// when the photo is small enough to serve its previews itself.
    func reducedForPreviews(_ loaded: LoadedPhoto) -> LoadedPhoto?
    /// `fresh`, the photo decoded again, with the planes made in the background for `kept` (a copy kept of it):
    /// its learned person matte and the depth estimated from it.
    func carryingPlanes(of kept: LoadedPhoto, to fresh: LoadedPhoto) -> LoadedPhoto
    /// Bytes every open photo's render cache holds together.
    var cacheBytesHeld: Int { get }
    /// The uploads folder the backend reads uploaded photos from, so the server's upload handler writes
    /// through the same store (nil: the server opens the data directory's own).
    var uploadStore: UploadStore? { get }
}

extension StudioBackend {
    public var uploadStore: UploadStore? { nil }

    /// A backend that keeps no reduced copies serves every render from the photo itself.
    public func reducedForPreviews(_ loaded: LoadedPhoto) -> LoadedPhoto? { nil }

    public func carryingPlanes(of kept: LoadedPhoto, to fresh: LoadedPhoto) -> LoadedPhoto { fresh }
}
