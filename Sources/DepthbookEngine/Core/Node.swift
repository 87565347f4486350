/// One immutable step of a recipe: a filter applied to input nodes. Nothing is computed when a node is
/// built; an `Evaluator` renders it for a `RenderTarget`.
///
/// Building checks the inputs' kinds, so a wrongly wired recipe fails here with a message, not mid-render.
public final class Node: Sendable, CustomStringConvertible {
    public let filter: any Filter
    public let inputs: [Node]
    /// Whether the output is an RGB image or a single-channel plane.
    public let kind: PixelKind
    /// Native pixel size of the output (the resolution spatial parameters are expressed in).
    public let extent: PixelSize
    /// Stable identity of (filter, parameters, inputs' keys): the cache key.
    public let key: NodeKey
    /// Whether the cache keeps this node's previews as it keeps a photo's planes reduced to them (pinned,
    /// `RenderCache`): for a stage made from the photo alone that a slider's every change reads again (the
    /// photo's fitted subject). Evicted as an ordinary entry among twenty photos' drags, it was made anew per frame.
    public let pinnedInCache: Bool

    public init(_ filter: any Filter, _ inputs: [Node] = [], pinnedInCache: Bool = false) throws {
        self.pinnedInCache = pinnedInCache
        self.filter = filter
        self.inputs = inputs
        self.kind = try filter.outputKind(for: inputs.map(\.kind))
        self.extent = filter.extent(inputs: inputs.map(\.extent))
        guard !extent.isEmpty else {
            throw RenderError.badInputs(filter: type(of: filter).info.name, message: "empty extent \(extent)")
        }
        self.key = NodeKey("\(type(of: filter).info.name)(\(filter.parameterKey))", inputs: inputs.map(\.key))
    }

    public var name: String { type(of: filter).info.name }
    public var description: String { "\(name)(\(filter.parameterKey)) \(kind) \(extent) #\(key)" }

    /// Applies `filter` with this node as the first input.
    public func applying(_ filter: any Filter, _ others: Node...) throws -> Node {
        try Node(filter, [self] + others)
    }
}
