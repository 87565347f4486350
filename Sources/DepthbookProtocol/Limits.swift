/// Every bound on a number or size that arrives over the wire or the command line, in one place: the request
/// decoder checks them before any work, the renderer and the commands read them, and the page receives them in
/// the `hello` reply instead of hard-coding its own.
public struct Limits: Sendable, Equatable, Codable {
    /// The largest text message accepted; anything longer is answered with `too_large` unread.
    public var maxMessageBytes = 1 << 20
    /// Sequence numbers, like ids, stay within JSON's exact integers (2^53 − 1), so `seq + 1` never overflows.
    public var maxSeq = 9_007_199_254_740_991
    public var previewWidth = 64...2048
    /// The width a cell's preview renders at before the page has asked for one (a cell below the one moved).
    public var defaultPreviewWidth = 1024
    /// A coarse pass (the first frame of a drag) renders at half the preview's width, never narrower than this.
    public var coarseMinimumWidth = 64
    /// A crop's side in pixels; its corner lies inside the image, whose side is at most `maxImageSide`.
    public var maxCropSide = 1024
    public var maxImageSide = 65_536
    public var histogramBins = 2...1024
    /// What a page asks for: enough for a smooth curve, small enough to send after every frame.
    public var defaultHistogramBins = 128
    public var exportFrames = 2...120
    public var exportWidth = 16...2048
    public var defaultExportFrames = 12
    public var defaultExportWidth = 480
    /// Any render's width, headless or served: `depthbook render --width` and the renderer's own check (a
    /// served render is already within `previewWidth`, `exportWidth` or the photo's own size).
    public var renderWidth = 16...16_384
    /// A loop's frame width from the command line (`depthbook wiggle`), where no other user shares the memory;
    /// served exports stay within `exportWidth`.
    public var loopWidth = 16...4_096
    /// An uploaded file's size in bytes; `depthbook serve --upload-limit-mb` sets a studio's own, which its `hello`
    /// sends, so a page refuses a larger file before sending any of it (nginx in deploy/ has the same default).
    public var maxUploadBytes = 64 << 20
    /// Notebook size at the door (setNotebook, saved and bundled notebooks).
    public var notebook = NotebookLimits()

    public static let studio = Limits()

    enum CodingKeys: String, CodingKey {
        case maxMessageBytes, maxSeq, previewWidth, maxCropSide, maxImageSide, histogramBins, defaultHistogramBins, exportFrames, exportWidth
        case defaultPreviewWidth, defaultExportFrames, defaultExportWidth, renderWidth, loopWidth, maxUploadBytes, notebook
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func range(_ r: ClosedRange<Int>) -> [String: Int] { ["min": r.lowerBound, "max": r.upperBound] }
        try c.encode(maxMessageBytes, forKey: .maxMessageBytes)
        try c.encode(maxSeq, forKey: .maxSeq)
        try c.encode(range(previewWidth), forKey: .previewWidth)
        try c.encode(defaultPreviewWidth, forKey: .defaultPreviewWidth)
        try c.encode(maxCropSide, forKey: .maxCropSide)
        try c.encode(maxImageSide, forKey: .maxImageSide)
        try c.encode(range(histogramBins), forKey: .histogramBins)
        try c.encode(defaultHistogramBins, forKey: .defaultHistogramBins)
        try c.encode(range(exportFrames), forKey: .exportFrames)
        try c.encode(range(exportWidth), forKey: .exportWidth)
        try c.encode(defaultExportFrames, forKey: .defaultExportFrames)
        try c.encode(defaultExportWidth, forKey: .defaultExportWidth)
        try c.encode(range(renderWidth), forKey: .renderWidth)
        try c.encode(range(loopWidth), forKey: .loopWidth)
        try c.encode(maxUploadBytes, forKey: .maxUploadBytes)
        try c.encode(notebook, forKey: .notebook)
    }

    public init() {}

    /// As a client reads them from `hello` (the load test): ranges as `{"min", "max"}`; a bound this version does
    /// not send keeps its own value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        struct Range: Decodable { var min: Int; var max: Int }
        func range(_ key: CodingKeys, _ own: ClosedRange<Int>) throws -> ClosedRange<Int> {
            guard let read = try c.decodeIfPresent(Range.self, forKey: key) else { return own }
            guard read.min <= read.max else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "min \(read.min) is above max \(read.max)")
            }
            return read.min...read.max
        }
        maxMessageBytes = try c.decodeIfPresent(Int.self, forKey: .maxMessageBytes) ?? maxMessageBytes
        maxSeq = try c.decodeIfPresent(Int.self, forKey: .maxSeq) ?? maxSeq
        previewWidth = try range(.previewWidth, previewWidth)
        defaultPreviewWidth = try c.decodeIfPresent(Int.self, forKey: .defaultPreviewWidth) ?? defaultPreviewWidth
        maxCropSide = try c.decodeIfPresent(Int.self, forKey: .maxCropSide) ?? maxCropSide
        maxImageSide = try c.decodeIfPresent(Int.self, forKey: .maxImageSide) ?? maxImageSide
        histogramBins = try range(.histogramBins, histogramBins)
        defaultHistogramBins = try c.decodeIfPresent(Int.self, forKey: .defaultHistogramBins) ?? defaultHistogramBins
        exportFrames = try range(.exportFrames, exportFrames)
        exportWidth = try range(.exportWidth, exportWidth)
        defaultExportFrames = try c.decodeIfPresent(Int.self, forKey: .defaultExportFrames) ?? defaultExportFrames
        defaultExportWidth = try c.decodeIfPresent(Int.self, forKey: .defaultExportWidth) ?? defaultExportWidth
        renderWidth = try range(.renderWidth, renderWidth)
        loopWidth = try range(.loopWidth, loopWidth)
        maxUploadBytes = try c.decodeIfPresent(Int.self, forKey: .maxUploadBytes) ?? maxUploadBytes
        notebook = try c.decodeIfPresent(NotebookLimits.self, forKey: .notebook) ?? notebook
    }

    /// `value` within `range`, or the error naming the field and the range.
    public func check(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "") throws(ProtocolError) {
        guard range.contains(value) else {
            throw ProtocolError.badRequest("\"\(field)\" must be between \(range.lowerBound) and \(range.upperBound)\(unit), not \(value)")
        }
    }
}
