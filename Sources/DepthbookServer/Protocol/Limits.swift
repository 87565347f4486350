import DepthbookEffects

/// Every bound on a number or size that arrives over the wire, in one place: the request decoder checks them
/// before any work, and the page receives them in the `hello` reply instead of hard-coding its own.
public struct Limits: Sendable, Equatable, Encodable {
    /// The largest text message accepted; anything longer is answered with `too_large` unread.
    public var maxMessageBytes = 1 << 20
    /// Sequence numbers, like ids, stay within JSON's exact integers (2^53 − 1), so `seq + 1` never overflows.
    public var maxSeq = 9_007_199_254_740_991
    public var previewWidth = 64...2048
    /// A crop's side in pixels; its corner lies inside the image, whose side is at most `maxImageSide`.
    public var maxCropSide = 1024
    public var maxImageSide = 65_536
    public var histogramBins = 2...1024
    public var exportFrames = 2...120
    public var exportWidth = 16...2048
    public var defaultExportFrames = 12
    public var defaultExportWidth = 480
    /// Notebook size at the door (setNotebook, saved and bundled notebooks): see `Notebook.Limits`.
    public var notebook = Notebook.limits

    public static let studio = Limits()

    enum CodingKeys: String, CodingKey {
        case maxMessageBytes, maxSeq, previewWidth, maxCropSide, maxImageSide, histogramBins, exportFrames, exportWidth
        case defaultExportFrames, defaultExportWidth, notebook
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func range(_ r: ClosedRange<Int>) -> [String: Int] { ["min": r.lowerBound, "max": r.upperBound] }
        try c.encode(maxMessageBytes, forKey: .maxMessageBytes)
        try c.encode(maxSeq, forKey: .maxSeq)
        try c.encode(range(previewWidth), forKey: .previewWidth)
        try c.encode(maxCropSide, forKey: .maxCropSide)
        try c.encode(maxImageSide, forKey: .maxImageSide)
        try c.encode(range(histogramBins), forKey: .histogramBins)
        try c.encode(range(exportFrames), forKey: .exportFrames)
        try c.encode(range(exportWidth), forKey: .exportWidth)
        try c.encode(defaultExportFrames, forKey: .defaultExportFrames)
        try c.encode(defaultExportWidth, forKey: .defaultExportWidth)
        try c.encode(notebook, forKey: .notebook)
    }

    /// `value` within `range`, or the error naming the field and the range.
    func check(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "") throws(ProtocolError) {
        guard range.contains(value) else {
            throw ProtocolError.badRequest("\"\(field)\" must be between \(range.lowerBound) and \(range.upperBound)\(unit), not \(value)")
        }
    }
}
