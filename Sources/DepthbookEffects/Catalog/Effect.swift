import DepthbookDocument
import DepthbookEngine

/// What a node shows when a cell is displayed: the page sees images, grey masks, or colour-mapped depth.
enum PlaneRole: Sendable, Equatable {
    case image
    /// Mattes and masks, 0...1, shown as grey.
    case mask
    /// Depth or disparity (NaN holes), shown through a colour map: near red, far blue.
    case depth(DepthKind)
}

/// A built recipe for one cell: the engine node, how to show it, and the threshold it cuts at (if any).
struct BuiltNode: Sendable {
    var node: Node
    var role: PlaneRole
    /// For threshold cells: the value of the input where the cut lies (the histogram's marker).
    var marker: Double?
    /// Parameters the cell left out whose values the effect picked from the photo (name → value), shown on
    /// the page as the sliders' positions.
    var chosen: [String: ParameterValue]
    /// What the page should tell the user once about how this photo was handled (shown with the photo).
    var notes: Set<String>

    init(_ node: Node, role: PlaneRole, marker: Double? = nil, chosen: [String: ParameterValue] = [:],
         notes: Set<String> = []) {
        self.node = node
        self.role = role
        self.marker = marker
        self.chosen = chosen
        self.notes = notes
    }
}

/// The inputs of one step, by slot name, already checked against the effect's input table.
struct EffectInputs: Sendable {
    let effect: String
    let slots: [String: BuiltNode]

    func node(_ name: String) throws(EffectError) -> Node { try built(name).node }

    func built(_ name: String) throws(EffectError) -> BuiltNode {
        guard let b = slots[name] else { throw .badInput(effect: effect, message: "input \"\(name)\" is not connected") }
        return b
    }

    func optional(_ name: String) -> BuiltNode? { slots[name] }
}

/// One named effect: its documented table and how it builds a recipe from engine primitives.
protocol Effect: Sendable {
    static var description: EffectDescription { get }
    static func build(_ inputs: EffectInputs, _ params: ResolvedParameters, _ context: EffectContext) throws -> BuiltNode
}

/// What effects may consult while building: the photo (faces, accuracy, size) and statistics of input
/// nodes, computed once at the node's native resolution so a preview and the full render cut at the same value.
struct EffectContext: Sendable {
    let photo: Photo
    let photoID: String
    let evaluator: Evaluator
    let statistics: StatisticsCache
    /// Images the user uploaded, when the host can read them.
    let uploads: (any UploadedImages)?

    /// Converts a size in full-resolution image pixels to pixels of `node`'s native extent (the engine's unit).
    func nativePixels(_ fullResolution: Double, for node: Node) -> Double {
        fullResolution * Double(node.extent.width) / Double(max(1, photo.width))
    }

    /// The node rendered whole at its native size (kept in the photo's render cache, within its budget).
    /// Kept even by a loop's evaluator, which keeps no frame: statistics are asked for again on every frame.
    func native(_ node: Node) throws -> PixelBuffer {
        try Evaluator(context: evaluator.context, keepsResult: true).render(node, RenderTarget(size: node.extent))
    }

    /// Widest a node is rendered to be measured (a subject's box, a histogram). A depth map or matte
    /// (768–1544 px) is measured at its own resolution; a plane or image at the photo's 12 MP is measured at
    /// this width: measuring the pug's fitted subject mask at 4032 px ran its guided filter over the whole photo
    /// for every preview (1 GB of working memory for a 736-px Big Head), and its box moves by under a pixel.
    static let measureWidth = 1600

    /// The node rendered whole at its native size, or at `measureWidth` when wider (kept like `native`).
    func measured(_ node: Node) throws -> PixelBuffer {
        let extent = node.extent
        guard extent.width > Self.measureWidth else { return try native(node) }
        let height = max(1, Int((Double(Self.measureWidth) * Double(extent.height) / Double(extent.width)).rounded()))
        return try Evaluator(context: evaluator.context, keepsResult: true)
            .render(node, RenderTarget(size: PixelSize(width: Self.measureWidth, height: height)))
    }

    /// The `p`-th percentile (0...100) of the node's valid (non-NaN) samples, nil when all are holes.
    func percentile(_ node: Node, _ p: Double) throws -> Double? {
        let buffer = try native(node)
        return Statistics.percentile(sorted: statistics.sortedValid(node.key, buffer), p)
    }
}
