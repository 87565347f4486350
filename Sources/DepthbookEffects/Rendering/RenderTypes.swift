import DepthbookDocument
import DepthbookEngine

/// What to render of a cell: a preview `width` pixels wide of the whole picture, or (with `region`) a crop
/// of the full-resolution upright image, pixel for pixel.
public struct CellRenderRequest: Sendable, Equatable {
    public struct Region: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public var width: Int
    public var region: Region?

    public init(width: Int, region: Region? = nil) {
        self.width = width
        self.region = region
    }

    /// The whole cell output scaled to `width` pixels wide.
    public static func preview(width: Int) -> CellRenderRequest { CellRenderRequest(width: width) }

    /// A region of the cell output at full resolution, in upright image pixels.
    public static func crop(x: Int, y: Int, width: Int, height: Int) -> CellRenderRequest {
        CellRenderRequest(width: width, region: Region(x: x, y: y, width: width, height: height))
    }

    /// Whether this is a whole-frame preview (not a crop).
    public var isPreview: Bool { region == nil }
}

/// A rendered cell: 8-bit RGB ready for JPEG (planes already turned into grey or a colour map) and how much
/// of the recipe came from the cache.
public struct RenderedCell: Sendable {
    /// What the cell's output is, which decides how it was drawn.
    public enum Kind: String, Sendable, Codable {
        case image
        /// A matte or mask, drawn grey (white = 1).
        case mask
        /// Depth or disparity, drawn near red … far blue, holes black.
        case depth
    }

    /// The pixels as rendered: one grey channel for a mask, RGB otherwise (what a preview encodes: a grey
    /// JPEG is a third of the samples of an RGB one).
    public var pixels: Raster<UInt8>
    /// The picture as RGB (a mask's grey in all three channels).
    public var image: RGBImage8 { pixels.channels == 1 ? NotebookRenderer.grey(pixels) : pixels }
    public var cacheHits: Int
    public var cacheMisses: Int
    public var kind: Kind
    /// Parameters of the cell that were picked from the photo because the cell left them out (name → value).
    public var chosen: [String: ParameterValue] = [:]
    /// What the user should be told about how the photo was handled on the way (sorted, deduplicated).
    public var notes: [String] = []
}

/// A histogram the page draws: counts over min...max, the threshold's position (for threshold cells), and
/// how many samples are holes.
public struct CellHistogram: Sendable, Equatable {
    public var bins: [Int]
    public var min: Double
    public var max: Double
    public var marker: Double?
    public var holes: Int

    public init(bins: [Int], min: Double, max: Double, marker: Double?, holes: Int) {
        self.bins = bins
        self.min = min
        self.max = max
        self.marker = marker
        self.holes = holes
    }
}
