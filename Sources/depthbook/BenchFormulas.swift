import ArgumentParser
import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import Foundation

/// Issue 28's speed check: each formula of `Notebooks/formulas.json` against the built-in effect it rebuilds,
/// on a real photo, at a 736-px preview and at the photo's own size.
///
/// Two figures per cell. `formula`/`builtin`: the cell's pointwise chain alone, its neighbourhood inputs (the
/// depth-threshold mask, the photo reduced for a preview, an upsampled plane) already rendered, as a slider
/// drag on the chain pays. `formula_cold`/`builtin_cold`: the whole cell from the decoded photo, nothing cached.
/// The formula's line carries `ratio`, its median over the built-in's; runs of the two alternate, so a slow
/// spell of a shared machine falls on both.
struct FormulaBenchPair {
    let pipeline: String
    let formula: String
    let builtIn: String

    static let all: [String: FormulaBenchPair] = [
        "F1": FormulaBenchPair(pipeline: "formula:darken", formula: "darkenFormula", builtIn: "darkenBuiltIn"),
        "F2": FormulaBenchPair(pipeline: "formula:noir", formula: "noirFormula", builtIn: "noirBuiltIn"),
        "F3": FormulaBenchPair(pipeline: "formula:makeup", formula: "makeupFormula", builtIn: "makeupBuiltIn"),
    ]

    /// The preview width the studio renders while a slider moves.
    static let previewWidth = 736
}

extension BenchCommand {
    func benchFormulas(_ ids: [String], sizes: [String], threadCounts: [Int]) throws {
        guard FileManager.default.fileExists(atPath: realPath) else {
            FileHandle.standardError.write(Data("skip formulas: \(realPath) not found\n".utf8))
            return
        }
        let photo = try PhotoReader.read(contentsOf: realPath)
        let notebook = try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(contentsOf: URL(fileURLWithPath: formulaNotebook))))
        let renderer = NotebookRenderer(photo: photo, cacheBytes: 1 << 30)
        let full = PixelSize(width: photo.width, height: photo.height)
        // "real" is the photo's own size here, as "full" is: each size once.
        var targets: [(String, RenderTarget)] = []
        for size in sizes {
            switch size {
            case "preview":
                let height = max(1, Int((Double(FormulaBenchPair.previewWidth) * Double(full.height) / Double(full.width)).rounded()))
                targets.append(("preview", RenderTarget(size: PixelSize(width: FormulaBenchPair.previewWidth, height: height))))
            case "full", "real":
                if !targets.contains(where: { $0.0 == "full" }) { targets.append(("full", RenderTarget(size: full))) }
            default: throw ValidationError("unknown size \(size) (preview, full, real)")
            }
        }
        for id in ids {
            guard let pair = FormulaBenchPair.all[id] else { throw ValidationError("unknown pipeline \(id) (F1, F2, F3)") }
            let formula: Node, builtIn: Node
            do {
                formula = try renderer.recipe(notebook: notebook, cell: pair.formula)
                builtIn = try renderer.recipe(notebook: notebook, cell: pair.builtIn)
            } catch {
                // The makeup needs a skin matte, which the pug lacks.
                FileHandle.standardError.write(Data("skip \(pair.pipeline) on \(realPath): \(error)\n".utf8))
                continue
            }
            for (size, target) in targets {
                for t in threadCounts {
                    try benchPair(pair, formula: formula, builtIn: builtIn, size: size, target: target, threads: t)
                }
            }
        }
    }

    private func benchPair(_ pair: FormulaBenchPair, formula: Node, builtIn: Node, size: String, target: RenderTarget,
                           threads: Int) throws {
        let mp = Double(target.size.pixelCount) / 1e6
        let extra = ["width": target.size.width]
        let cold = try timePair(
            { _ = try Evaluator(context: RenderContext(threads: threads, cache: nil)).renderBytes(builtIn, target) },
            { _ = try Evaluator(context: RenderContext(threads: threads, cache: nil)).renderBytes(formula, target) })
        let warmBuiltIn = try WarmInputs(builtIn, target, threads: threads)
        let warmFormula = try WarmInputs(formula, target, threads: threads)
        let warm = try timePair({ try warmBuiltIn.render() }, { try warmFormula.render() })
        emit(pipeline: pair.pipeline, size: size, threads: threads, stage: "builtin", timing: warm.0, megapixels: mp, extra: extra)
        emit(pipeline: pair.pipeline, size: size, threads: threads, stage: "formula", timing: warm.1, megapixels: mp, extra: extra,
             ratio: warm.1.median / warm.0.median)
        emit(pipeline: pair.pipeline, size: size, threads: threads, stage: "builtin_cold", timing: cold.0, megapixels: mp, extra: extra)
        emit(pipeline: pair.pipeline, size: size, threads: threads, stage: "formula_cold", timing: cold.1, megapixels: mp,
             extra: extra, ratio: cold.1.median / cold.0.median)
    }

    /// Median, min and max of `a` and of `b`, their runs alternating after one warm-up each.
    func timePair(_ a: () throws -> Void, _ b: () throws -> Void) rethrows -> (Timing, Timing) {
        try a()
        try b()
        var ms: ([Double], [Double]) = ([], [])
        for _ in 0..<repeat_ {
            var start = DispatchTime.now().uptimeNanoseconds
            try a()
            ms.0.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            start = DispatchTime.now().uptimeNanoseconds
            try b()
            ms.1.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return (Timing(ms.0), Timing(ms.1))
    }
}

/// A node's render with the buffers its fused chain reads already made: each run gets a fresh cache holding
/// only those (so nothing of the chain itself is reused, as on the first frame of a drag).
struct WarmInputs {
    let root: Node
    let target: RenderTarget
    let threads: Int
    private var held: [(key: NodeKey, size: PixelSize, buffer: PixelBuffer)] = []

    init(_ root: Node, _ target: RenderTarget, threads: Int) throws {
        self.root = root
        self.target = target
        self.threads = threads
        let evaluator = Evaluator(context: RenderContext(threads: threads, cache: RenderCache(byteLimit: 4 << 30)))
        var seen = Set<NodeKey>()
        for (node, at) in Self.leaves(root, target, isRoot: true) where seen.insert(node.key).inserted {
            held.append((node.key, at.size, try evaluator.render(node, at)))
        }
    }

    func render() throws {
        let cache = RenderCache(byteLimit: 4 << 30)
        for h in held { cache.store(h.key, size: h.size, h.buffer) }
        _ = try Evaluator(context: RenderContext(threads: threads, cache: cache), keepsResult: false).renderBytes(root, target)
    }

    /// What a fused render of `node` reads whole, with the target it reads it at: walks down through pointwise
    /// stages; a resampling is computed inside the chain from its input; the photo's bytes at native size are
    /// read directly; anything else (a blur, morphology, the photo reduced for a preview) is a leaf.
    static func leaves(_ node: Node, _ target: RenderTarget, isRoot: Bool = false) -> [(Node, RenderTarget)] {
        if node.filter is any PointwiseFilter, !node.inputs.isEmpty {
            return node.inputs.flatMap { leaves($0, target) }
        }
        if isRoot { return node.inputs.map { ($0, target) } }
        if let resample = node.filter as? Resample, let input = node.inputs.first {
            return [(input, resample.inputTargets(for: target, extent: node.extent, inputExtents: [input.extent])[0])]
        }
        if let source = node.filter as? any ByteRowSource, source.bytes(for: target, extent: node.extent) != nil { return [] }
        return [(node, target)]
    }
}

extension BenchCommand.Timing {
    /// The median, min and max of some wall times in ms.
    init(_ runs: [Double]) {
        let ms = runs.sorted()
        let mid = ms.count / 2
        self.init(median: ms.count % 2 == 1 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2, min: ms.first ?? 0,
                  max: ms.last ?? 0, runs: ms.count)
    }
}
