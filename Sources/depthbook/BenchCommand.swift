import ArgumentParser
import DepthbookCodecs
import DepthbookEngine
import Foundation

/// `depthbook bench --json [--sizes preview,full,real] [--pipelines P1,P2,P3]`: the peers' pipelines on the
/// engine, printed as the peers' JSON lines so `scripts/bench.sh` can compare them in one run.
/// `--pipelines F1,F2,F3` times the formulas of `Notebooks/formulas.json` against the built-in effects they
/// rebuild, on the real photo, in the same line format (`BenchFormulas.swift`).
///
/// `total` is the whole pipeline from decoded inputs to JPEG bytes with an empty cache (nothing reused);
/// each other stage is timed alone with its inputs already rendered (held in a cache), like the peers'
/// per-stage figures. `decode` lines time reading the real 12 MP HEIC file and a 12 MP JPEG of it.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark the engine on the peers' pipelines P1, P2, P3 (JSON lines).")

    @Flag(help: "Print one JSON line per measurement (the only output format; kept for the peers' interface).")
    var json = false

    @Option(help: "Comma list of preview, full, real.")
    var sizes = "preview,full,real"

    @Option(help: "Comma list of P1, P2, P3 (the peers' pipelines) and F1, F2, F3 (formula against built-in: darken, Noir composite, makeup; on --real-photo, preview = 736 px wide, full = real = the photo's size).")
    var pipelines = "P1,P2,P3"

    @Option(help: "Comma list of thread counts.")
    var threads = "2"

    @Option(name: .customLong("repeat"), help: "Timed runs per measurement (the median is reported).")
    var repeat_: Int = 7

    @Flag(help: "Only time the whole pipelines.")
    var noStages = false

    @Option(help: "The real photo (default: ../shared/photos/pillow_heif__pug.heic from the working directory, or PEERS_REAL_PHOTO).")
    var realPhoto: String?

    @Option(help: "The notebook whose formula and built-in cells F1, F2, F3 time.")
    var formulaNotebook = "Notebooks/formulas.json"

    static let lib = "depthbook-\(DepthbookVersion.string)"

    func run() throws {
        let threadCounts = threads.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        guard !threadCounts.isEmpty, repeat_ > 0 else { throw ValidationError("--threads and --repeat need positive numbers") }
        let all = pipelines.split(separator: ",").map(String.init)
        let peers = all.filter { !$0.hasPrefix("F") }, formulas = all.filter { $0.hasPrefix("F") }
        for size in sizes.split(separator: ",").map(String.init) where !peers.isEmpty {
            let inputs: BenchInputs
            switch size {
            case "preview": inputs = BenchScene.synthetic(width: 1280, height: 960)
            case "full": inputs = BenchScene.synthetic(width: 4032, height: 3024)
            case "real":
                guard let loaded = try loadReal() else { continue }
                inputs = loaded
            default: throw ValidationError("unknown size \(size) (preview, full, real)")
            }
            for t in threadCounts {
                for p in peers {
                    try bench(BenchPipeline.make(p, inputs: inputs), size: size, threads: t)
                }
            }
        }
        if !formulas.isEmpty {
            try benchFormulas(formulas, sizes: sizes.split(separator: ",").map(String.init), threadCounts: threadCounts)
        }
    }

    var realPath: String {
        realPhoto ?? ProcessInfo.processInfo.environment["PEERS_REAL_PHOTO"] ?? "../shared/photos/pillow_heif__pug.heic"
    }

    /// Reads the real photo (timing the HEIC decode and the decode of a 12 MP JPEG made from it).
    func loadReal() throws -> BenchInputs? {
        guard FileManager.default.fileExists(atPath: realPath) else {
            FileHandle.standardError.write(Data("skip real: \(realPath) not found\n".utf8))
            return nil
        }
        let photo = try PhotoReader.read(contentsOf: realPath)
        let mp = Double(photo.width * photo.height) / 1e6
        emit(pipeline: "decode", size: "real", threads: 1, stage: "heic",
             timing: try time { _ = try PhotoReader.read(contentsOf: realPath) }, megapixels: mp)
        let jpeg = try JPEGEncoder.encode(photo.image, quality: 85)
        emit(pipeline: "decode", size: "real", threads: 1, stage: "jpeg",
             timing: try time { _ = try PhotoReader.read(data: jpeg) }, megapixels: mp, extra: ["jpeg_bytes": jpeg.count])
        emit(pipeline: "P4", size: "real", threads: 1, stage: "encode",
             timing: try time { _ = try JPEGEncoder.encode(photo.image, quality: 85) }, megapixels: mp)
        benchPersonMatte(photo, megapixels: mp)
        return try BenchScene.real(photo)
    }

    /// The learned person matte on the real photo, from its decoded pixels to the matte (the network at 2 threads,
    /// as `serve` runs it): the figure the studio's background job costs per photo. Skipped without the weights.
    func benchPersonMatte(_ photo: Photo, megapixels: Double) {
        switch PersonMatteSetup.open() {
        case .success(let matter):
            guard let timing = try? time({ _ = try matter.matte(of: photo.image) }) else { return }
            emit(pipeline: "matte", size: "real", threads: 2, stage: "personMatte", timing: timing, megapixels: megapixels)
        case .failure(let error):
            FileHandle.standardError.write(Data("skip matte: \(error)\n".utf8))
        }
    }

    func bench(_ pipeline: BenchPipeline, size: String, threads: Int) throws {
        let target = RenderTarget(size: pipeline.size)
        let mp = Double(pipeline.size.pixelCount) / 1e6
        var bytes = 0
        let total = try time {
            let context = RenderContext(threads: threads, cache: nil)
            let rgb = try Evaluator(context: context).renderBytes(pipeline.root, target)
            bytes = try JPEGEncoder.encode(rgb, quality: 85, threads: threads).count
        }
        emit(pipeline: pipeline.name, size: size, threads: threads, stage: "total", timing: total, megapixels: mp,
             extra: ["jpeg_bytes": bytes])
        if noStages { return }
        let cache = RenderCache(byteLimit: 4 << 30)
        var last: RGBImage8?
        for (stage, node) in pipeline.stages {
            // Inputs rendered once (into the cache), then the stage alone, forgotten after each run.
            for input in node.inputs { _ = try Evaluator(context: RenderContext(threads: threads, cache: cache)).render(input, target.fitting(input)) }
            let isLast = node === pipeline.root
            let timing = try time {
                let evaluator = Evaluator(context: RenderContext(threads: threads, cache: cache))
                if isLast {
                    last = try evaluator.renderBytes(node, target)
                } else {
                    _ = try evaluator.render(node, target.fitting(node))
                }
                cache.remove(node.key)
            }
            emit(pipeline: pipeline.name, size: size, threads: threads, stage: stage, timing: timing, megapixels: mp)
        }
        if let rgb = last {
            emit(pipeline: pipeline.name, size: size, threads: threads, stage: "jpeg",
                 timing: try time { _ = try JPEGEncoder.encode(rgb, quality: 85, threads: threads) }, megapixels: mp)
        }
    }

    struct Timing {
        var median: Double
        var min: Double
        var max: Double
        var runs: Int
    }

    /// Median, min and max wall time in ms of `body` after one warm-up run.
    func time(_ body: () throws -> Void) rethrows -> Timing {
        try body()
        var ms: [Double] = []
        for _ in 0..<repeat_ {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            ms.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        ms.sort()
        let mid = ms.count / 2
        let median = ms.count % 2 == 1 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2
        return Timing(median: median, min: ms.first ?? 0, max: ms.last ?? 0, runs: ms.count)
    }

    /// One line in the peers' format (keys in their order).
    func emit(pipeline: String, size: String, threads: Int, stage: String, timing: Timing, megapixels: Double,
              extra: [String: Int] = [:], ratio: Double? = nil) {
        func f(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
        var line = "{\"lib\": \"\(Self.lib)\", \"pipeline\": \"\(pipeline)\", \"size\": \"\(size)\", \"threads\": \(threads), "
        line += "\"stage\": \"\(stage)\", \"ms_median\": \(f(timing.median, 3)), \"mp_per_s\": \(f(megapixels / (timing.median / 1e3), 2)), "
        line += "\"ms_min\": \(f(timing.min, 3)), \"ms_max\": \(f(timing.max, 3)), \"runs\": \(timing.runs)"
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) { line += ", \"\(k)\": \(v)" }
        if let ratio { line += ", \"ratio\": \(f(ratio, 3))" }
        FileHandle.standardOutput.write(Data((line + "}\n").utf8))
    }
}

extension RenderTarget {
    /// The whole frame of `node` at its native size (the benchmark renders at scale 1).
    func fitting(_ node: Node) -> RenderTarget {
        RenderTarget(size: node.extent)
    }
}
