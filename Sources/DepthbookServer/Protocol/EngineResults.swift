import DepthbookEffects
import DepthbookMessages

/// The protocol's result types (`DepthbookMessages`) made from what the effects compute: the engine's types stay
/// free of the wire's shape, and a client decodes the same types the server encodes.
extension HistogramResult {
    init(_ histogram: CellHistogram) {
        self.init(bins: histogram.bins, min: histogram.min, max: histogram.max, marker: histogram.marker, holes: histogram.holes)
    }
}

extension CheckFormulaResult {
    init(_ analysis: FormulaAnalysis) {
        guard let formula = analysis.formula else {
            let error = analysis.error
            self.init(error: Problem(position: error?.position ?? 0, message: error?.message ?? "the formula was refused"))
            return
        }
        self.init(sliders: formula.sliders.map {
            Slider(name: $0.name, min: $0.min, max: $0.max, default: $0.defaultValue, step: $0.step, position: $0.position)
        }, output: formula.output?.rawValue, references: formula.references)
    }
}
