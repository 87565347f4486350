/// What a node produces: an RGB image (3 channels) or a single-channel plane (depth, matte, mask).
public enum PixelKind: String, Sendable, Hashable {
    case image
    case plane

    public var channels: Int { self == .image ? 3 : 1 }
}

/// One operation of the engine: typed parameters plus the maths that fills a requested region.
///
/// Filters are immutable values. Their spatial parameters are given in pixels of the plane they act on at
/// its native resolution (the node's `extent`) and are multiplied by the render `scale` (target width /
/// extent width), so a 1280-px preview of a 4032-px photo blurs by the same fraction of the picture as the
/// full render. Inputs are rendered for the same field of view; `inputTargets` says at which size and for
/// which region.
public protocol Filter: Sendable {
    /// Name, Core Image equivalent, summary and the parameter table.
    static var info: FilterInfo { get }
    /// The parameter values in a fixed order, used in the cache key (e.g. "sigma=6.0").
    var parameterKey: String { get }
    /// Checks the inputs' kinds (and count), and says what this filter makes of them.
    func outputKind(for inputs: [PixelKind]) throws -> PixelKind
    /// Native pixel size of the output, from the inputs' native sizes (default: the first input's).
    func extent(inputs: [PixelSize]) -> PixelSize
    /// The target each input is rendered at to make `target` (default: the same target).
    func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget]
    /// Whether this filter needs the whole frame (statistics, or a cached downsampled source): the evaluator
    /// then renders and caches the whole frame and crops the region asked for.
    func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool
    /// Fills `request.target.region` from inputs rendered at `request.inputTargets`.
    func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer
    /// Where the output's pixels come from, so the photo's depth and mattes can follow the image (`PlaneFollower`).
    static var placement: PixelPlacement { get }
}

/// Everything a filter needs to know about one render of its node.
public struct RenderRequest: Sendable {
    /// The frame size and region to fill.
    public var target: RenderTarget
    /// The node's native size.
    public var extent: PixelSize
    /// The targets the inputs were rendered at (their frame sizes and regions).
    public var inputTargets: [RenderTarget]
    /// The inputs' native sizes.
    public var inputExtents: [PixelSize]

    public init(target: RenderTarget, extent: PixelSize, inputTargets: [RenderTarget], inputExtents: [PixelSize] = []) {
        self.target = target
        self.extent = extent
        self.inputTargets = inputTargets
        self.inputExtents = inputExtents
    }

    /// How many target pixels one native pixel spans: spatial parameters (in native pixels) are multiplied by it.
    public var scale: Double { Double(target.size.width) / Double(extent.width) }
    public var region: PixelRect { target.region }
}

extension Filter {
    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.first ?? PixelSize(width: 1, height: 1) }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        inputExtents.map { _ in target }
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { false }

    /// Most filters change colour or tone, or blur, where the pixels already are.
    public static var placement: PixelPlacement { .inPlace }

    /// Throws unless there are exactly `kinds.count` inputs of those kinds.
    public func expect(_ inputs: [PixelKind], _ kinds: [PixelKind]) throws {
        guard inputs == kinds else {
            throw RenderError.badInputs(
                filter: Self.info.name,
                message: "expects inputs \(kinds.map(\.rawValue)), got \(inputs.map(\.rawValue))")
        }
    }

    /// The input target for a spatial filter: same size, region grown by `margin`, clipped to the frame.
    public func grown(_ target: RenderTarget, by margin: Int) -> RenderTarget {
        target.with(region: target.region.outset(by: margin))
    }
}

/// A filter of one input whose output is the same kind as it (a blur, a warp, a crop): the one `outputKind` they
/// all had.
public protocol OneInputFilter: Filter {}

extension OneInputFilter {
    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        return inputs[0]
    }
}

/// A filter whose output pixel depends only on the same pixel of its inputs (colour, blend, threshold).
///
/// The evaluator fuses chains of these: it runs the whole chain row by row over small scratch rows instead
/// of writing every intermediate image to memory.
public protocol PointwiseFilter: Filter {
    /// Computes `count` output pixels. `inputs[i]` points at `count * inputChannels[i]` samples; `output`
    /// has room for `count * outputChannels`.
    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int)

    /// Whether the filter has one input, as many channels out as in, and each output sample is a function of
    /// the same sample of the input alone (one function per channel, the same for every pixel). A fused chain
    /// then runs it once over the 256 values a byte of the photo can have and looks its results up.
    var isChannelwise: Bool { get }
}

extension PointwiseFilter {
    public var isChannelwise: Bool { false }

    /// Runs `apply` over the region, in row bands on every core.
    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let region = request.region
        let inputChannels = inputs.map(\.channels)
        let outputChannels = try outputKind(for: inputs.map { $0.channels == 3 ? .image : .plane }).channels
        let width = region.width
        return PixelBuffer(region: region, channels: outputChannels) { out in
            let outBase = out.baseAddress!
            withPointers(inputs) { pointers in
                context.parallelRows(region.height, samplesPerRow: width * outputChannels) { rows in
                    var rowPointers = pointers
                    for y in rows {
                        for i in pointers.indices { rowPointers[i] = pointers[i] + y * width * inputChannels[i] }
                        apply(inputs: rowPointers, inputChannels: inputChannels,
                              output: outBase + y * width * outputChannels, outputChannels: outputChannels, count: width)
                    }
                }
            }
        }
    }
}

/// Calls `body` with base pointers to every buffer's samples (valid only inside `body`).
func withPointers<R>(_ buffers: [PixelBuffer], _ body: ([UnsafePointer<Float>]) throws -> R) rethrows -> R {
    var pointers: [UnsafePointer<Float>] = []
    pointers.reserveCapacity(buffers.count)
    func recurse(_ index: Int) throws -> R {
        if index == buffers.count { return try body(pointers) }
        return try buffers[index].samples.withUnsafeBufferPointer { buffer in
            pointers.append(buffer.baseAddress ?? UnsafePointer(bitPattern: 16)!)
            defer { pointers.removeLast() }
            return try recurse(index + 1)
        }
    }
    return try recurse(0)
}
