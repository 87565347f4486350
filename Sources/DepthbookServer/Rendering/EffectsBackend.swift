import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookMessages
import DepthbookProtocol
import Foundation

/// The studio's real backend: samples and effects from DepthbookEffects, files through DepthbookCodecs.
public struct EffectsBackend: StudioBackend {
    let uploads: UploadStore
    let samplesDirectory: String
    /// Bytes of rendered intermediates each open photo's renderer may keep.
    let cacheBytes: Int
    /// What every open photo's cache together may keep (the server's memory budget sets it).
    public let cacheBudget: CacheBudget

    /// The learned person matte's network, when its weights loaded; nil: subjects from depth alone.
    let personMatter: PersonMatter?
    /// What the render caches give up while the network runs (`MemoryBudget.personMatteRoomBytes`).
    let personMatteRoomBytes: Int

    /// `samplesDirectory` (default: `samples` in the data directory) may be shared by several servers: each
    /// sample is written whole under its final name, and one that is there is only read.
    public init(dataDirectory: String, samplesDirectory: String? = nil, cacheBytes: Int = 256 << 20,
                sharedCacheBytes: Int = 384 << 20, personMatter: PersonMatter? = nil,
                personMatteRoomBytes: Int = MemoryBudget().personMatteRoomBytes(renderWorkers: ServerConfiguration().renderWorkers)) throws {
        self.personMatter = personMatter
        self.personMatteRoomBytes = personMatteRoomBytes
        self.cacheBytes = min(cacheBytes, sharedCacheBytes)
        cacheBudget = CacheBudget(limit: sharedCacheBytes)
        uploads = try UploadStore(directory: dataDirectory + "/uploads")
        self.samplesDirectory = samplesDirectory ?? dataDirectory + "/samples"
        try FileManager.default.createDirectory(atPath: self.samplesDirectory, withIntermediateDirectories: true)
    }

    public var cacheBytesHeld: Int { cacheBudget.bytes }

    public var uploadStore: UploadStore? { uploads }

    public func effectCatalog() -> JSONValue {
        NotebookRenderer.catalogJSON
    }

    public func samples() throws -> [SampleSummary] {
        SampleLibrary.all.map { SampleSummary(id: $0.id, title: $0.title, width: $0.width, height: $0.height, planes: $0.planes) }
    }

    /// Writes every bundled sample the data directory lacks, as a portrait JPEG with depth and mattes, so the
    /// first page to open one does not wait for it to be generated. Returns the ids written.
    @discardableResult
    public func generateMissingSamples() throws -> [String] {
        var written: [String] = []
        for sample in SampleLibrary.all where !FileManager.default.fileExists(atPath: samplePath(sample.id)) {
            _ = try samplePhoto(sample.id)
            written.append(sample.id)
        }
        return written
    }

    public func loadPhoto(_ reference: PhotoReference) throws -> LoadedPhoto {
        let photo: Photo
        switch reference {
        case .sample(let id):
            photo = try samplePhoto(id)
        case .upload(let id):
            switch uploads.lookup(id) {
            case .file(let path):
                photo = try PhotoReader.read(contentsOf: path)
            case .pair(let image, let depth, let polarity):
                guard let imagePath = uploads.path(of: image), let depthPath = uploads.path(of: depth) else {
                    throw ProtocolError.notFound("the uploaded photo \"\(id)\" is missing its image or depth map")
                }
                photo = try PhotoReader.read(contentsOf: imagePath, depthMapPath: depthPath, polarity: polarity)
            case nil:
                throw ProtocolError.notFound("no uploaded photo \"\(id)\"; upload it again")
            }
        case .path:
            throw ProtocolError.forbidden("photos given by path are for the command line; upload the file instead")
        }
        return prepare(photo, as: reference)
    }

    /// The photo as the sessions share it, at once. A photo without Apple's portrait matte (and not a bundled
    /// sample: those are generated scenes whose people carry their own mattes) awaits the learned person matte,
    /// which `withPersonMatte` makes in the background; meanwhile its subject comes from depth, and its facts
    /// list the matte under `"coming"` so the page can say so.
    public func prepare(_ photo: Photo, as reference: PhotoReference) -> LoadedPhoto {
        let awaits = personMatter != nil && !Self.isSample(reference)
            && photo.personMatte == nil && photo.matte(.portraitEffectsMatte) == nil
        return ready(photo, as: reference, awaitsPersonMatte: awaits)
    }

    /// `loaded` with its person matte (the network runs here, about a second for a 12 MP photo). When the
    /// network fails the photo goes on without it and its subject keeps coming from depth. The render caches
    /// make room for the network's working memory first, so the server stays within its memory budget.
    public func withPersonMatte(_ loaded: LoadedPhoto) -> LoadedPhoto {
        guard loaded.awaitsPersonMatte, let matter = personMatter else { return ready(loaded.photo, as: loaded.reference) }
        let matted = cacheBudget.withRoom(personMatteRoomBytes) { try? matter.withPersonMatte(loaded.photo) }
        return ready(matted ?? loaded.photo, as: loaded.reference)
    }

    /// Longest side of the copy kept for previews: the widest preview the page asks for.
    static let reducedSide = Limits.studio.previewWidth.upperBound

    public func reducedForPreviews(_ loaded: LoadedPhoto) -> LoadedPhoto? {
        guard let reduced = try? loaded.photo.reducedForPreviews(maxSide: Self.reducedSide), reduced.isReduced else { return nil }
        var copy = ready(reduced, as: loaded.reference, awaitsPersonMatte: loaded.awaitsPersonMatte)
        copy.facts = loaded.facts
        return copy
    }

    public func carryingPlanes(of kept: LoadedPhoto, to fresh: LoadedPhoto) -> LoadedPhoto {
        guard fresh.awaitsPersonMatte, !kept.awaitsPersonMatte, let matte = kept.photo.personMatte else { return fresh }
        var photo = fresh.photo
        photo.personMatte = matte
        if photo.depth == nil { photo.depth = kept.photo.depth }
        return ready(photo, as: fresh.reference)
    }

    private func ready(_ photo: Photo, as reference: PhotoReference, awaitsPersonMatte: Bool = false) -> LoadedPhoto {
        LoadedPhoto(reference: reference, photo: photo,
                    facts: PhotoFactsJSON.make(photo, source: reference, coming: awaitsPersonMatte ? ["personMatte"] : []),
                    renderer: EffectsRenderer(photo: photo, cacheBytes: cacheBytes, cacheBudget: cacheBudget,
                                              uploads: StoredUploads(store: uploads), awaitsPersonMatte: awaitsPersonMatte),
                    awaitsPersonMatte: awaitsPersonMatte)
    }

    private static func isSample(_ reference: PhotoReference) -> Bool {
        if case .sample = reference { return true }
        return false
    }

    public func inspectUpload(_ bytes: [UInt8], fileExtension: String, depthMap: [UInt8]?,
                              polarity: DepthMapPolarity) throws -> Photo {
        try PhotoReader.read(data: bytes, depthMapData: depthMap, polarity: polarity)
    }

    private static let generating = NSLock()

    private func samplePath(_ id: String) -> String { "\(samplesDirectory)/\(id).jpg" }

    /// A sample as the file Depthbook generated for it: read back through the codecs like any phone photo,
    /// so every session (and every later start) sees exactly the same planes.
    private func samplePhoto(_ id: String) throws -> Photo {
        guard SampleLibrary.all.contains(where: { $0.id == id }) else {
            throw ProtocolError.notFound("no sample \"\(id)\"; samples: \(SampleLibrary.all.map(\.id).joined(separator: ", "))")
        }
        let path = samplePath(id)
        if FileManager.default.fileExists(atPath: path) { return try PhotoReader.read(contentsOf: path) }
        // One generation at a time: twenty pages opening a sample on a fresh data directory (or the start-up
        // pass beside them) wait for the one making it instead of each tracing it again.
        Self.generating.lock()
        defer { Self.generating.unlock() }
        if FileManager.default.fileExists(atPath: path) { return try PhotoReader.read(contentsOf: path) }
        let bytes = try PhotoWriter.jpegWithDepth(try SampleLibrary.photo(id: id))
        try AtomicFile.write(bytes, to: path)
        return try PhotoReader.read(data: bytes)
    }
}
