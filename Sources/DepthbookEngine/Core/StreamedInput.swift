/// A filter that can read its one input row by row as the rows are made, instead of from a materialised plane:
/// a mask upscaled to the frame and then feathered (P1) never exists at full size.
protocol RowStreamingFilter: Filter {
    /// Whether this render can take its input as rows (else the input is materialised as usual).
    func canStream(_ request: RenderRequest) -> Bool
    /// Fills the request from `rows`, which makes any row of `request.inputTargets[0].region` on demand with
    /// the same values the materialised input would hold.
    func render(streaming rows: ResampledRows, _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer
}

extension Evaluator {
    /// The node's single input as rows made on demand, when that input is a resampling of a plane (not already
    /// cached): its source is rendered, the resampling itself is left to the consumer, row by row.
    func streamedInput(of node: Node, target: RenderTarget) throws -> ResampledRows? {
        guard node.inputs.count == 1, let input = node.inputs.first, input.kind == .plane,
              let resample = input.filter as? Resample, let source = input.inputs.first,
              context.cache?.lookup(input.key, target) == nil else { return nil }
        let sourceTarget = resample.inputTargets(for: target, extent: input.extent, inputExtents: [source.extent])[0]
        guard sourceTarget.size != target.size else { return nil }
        let buffer = try evaluate(source, sourceTarget)
        context.countMiss()
        return ResampledRows(resampler: resample.resampler(target, inputSize: sourceTarget.size), input: buffer,
                             region: target.region)
    }
}
