/// A source that can hand its 8-bit rows straight to a fused pointwise chain (the photo's image at native
/// size), so the chain reads bytes instead of a float copy of a 12 MP image.
public protocol ByteRowSource: Filter {
    /// The raster whose pixels are exactly the frame at `target.size`, or nil when it must be resampled.
    func bytes(for target: RenderTarget, extent: PixelSize) -> Raster<UInt8>?
}

/// A chain of pointwise nodes compiled into a small register program and run row by row: each row segment
/// flows through every stage in cache-sized scratch rows, and only the chain's result is written out.
struct FusedPointwise {
    enum Operand {
        case buffer(Int)
        case bytes(Int)
        case resampled(Int)
        case register(Int)
        /// A chain of channelwise stages over a byte leaf, looked up per sample (`byteTables`).
        case lookup(Int)
    }

    struct Instruction {
        let filter: any PointwiseFilter
        let operands: [Operand]
        let channels: [Int]
        let outputChannels: Int
        let register: Int
    }

    let target: RenderTarget
    let context: RenderContext
    private(set) var buffers: [PixelBuffer] = []
    private(set) var byteLeaves: [(raster: Raster<UInt8>, register: Int)] = []
    /// Resamplings computed row segment by row segment inside the chain (no full-size plane in memory).
    private(set) var resampleLeaves: [(leaf: ResampledRows, register: Int)] = []
    /// Channelwise stages over a byte leaf, run once over the 256 byte values: `table[byte * channels + c]`.
    private(set) var byteTables: [(leaf: Int, table: [Float], register: Int)] = []
    private(set) var registerChannels: [Int] = []
    private(set) var program: [Instruction] = []
    private var memo: [NodeKey: (Operand, Int)] = [:]
    let outputChannels: Int
    /// Pixels per row segment: scratch rows stay in L1/L2.
    static let segment = 2048

    /// Whether a pointwise stage asked for before (`RenderCache.isRepeat`) is rendered on its own and kept
    /// instead of recomputed inside the chain. Off inside such a stage, so only its top is kept.
    private let keepsRepeats: Bool

    init(root: Node, target: RenderTarget, evaluator: Evaluator, keepsRepeats: Bool = true) throws {
        self.target = target
        self.context = evaluator.context
        self.outputChannels = root.kind.channels
        self.keepsRepeats = keepsRepeats
        let (operand, _) = try compile(root, evaluator: evaluator, isRoot: true)
        if case .register = operand {} else {
            // The root itself came from a buffer: copy it through an identity stage.
            let reg = newRegister(root.kind.channels)
            program.append(Instruction(filter: Identity(), operands: [operand], channels: [root.kind.channels],
                                       outputChannels: root.kind.channels, register: reg))
        }
    }

    private mutating func newRegister(_ channels: Int) -> Int {
        registerChannels.append(channels)
        return registerChannels.count - 1
    }

    private mutating func compile(_ node: Node, evaluator: Evaluator, isRoot: Bool) throws -> (Operand, Int) {
        if let known = memo[node.key] { return known }
        let channels = node.kind.channels
        let result: (Operand, Int)
        if !isRoot, let hit = evaluator.cachedBuffer(node, target) {
            buffers.append(hit)
            result = (.buffer(buffers.count - 1), channels)
        } else if !isRoot, keepsRepeats, node.filter is any PointwiseFilter, !node.inputs.isEmpty,
                  let cache = evaluator.context.cache, cache.isRepeat(node.key, size: target.size) {
            let kept = try FusedPointwise(root: node, target: target, evaluator: evaluator, keepsRepeats: false).runToFloats()
            evaluator.context.countMiss()
            cache.store(node.key, size: target.size, kept)
            buffers.append(kept)
            result = (.buffer(buffers.count - 1), channels)
        } else if let pointwise = node.filter as? any PointwiseFilter {
            var operands: [Operand] = []
            var inputChannels: [Int] = []
            for input in node.inputs {
                let (operand, c) = try compile(input, evaluator: evaluator, isRoot: false)
                operands.append(operand)
                inputChannels.append(c)
            }
            if !isRoot { evaluator.context.countMiss() }
            if pointwise.isChannelwise, operands.count == 1, inputChannels[0] == channels,
               let (leaf, values) = byteValues(operands[0]) {
                // Exactly what the stage gives each byte's value, computed once instead of once per pixel.
                let table = ByteTable.apply(pointwise, to: values, channels: channels)
                byteTables.append((leaf, table, newRegister(channels)))
                result = (.lookup(byteTables.count - 1), channels)
            } else {
                let reg = newRegister(channels)
                program.append(Instruction(filter: pointwise, operands: operands, channels: inputChannels,
                                           outputChannels: channels, register: reg))
                result = (.register(reg), channels)
            }
        } else if let resample = node.filter as? Resample, let input = node.inputs.first {
            let inputTarget = resample.inputTargets(for: target, extent: node.extent, inputExtents: [input.extent])[0]
            let buffer = try evaluator.evaluate(input, inputTarget)
            let resampler = resample.resampler(target, inputSize: inputTarget.size)
            resampleLeaves.append((ResampledRows(resampler: resampler, input: buffer, region: target.region), newRegister(channels)))
            evaluator.context.countMiss()
            result = (.resampled(resampleLeaves.count - 1), channels)
        } else if let source = node.filter as? any ByteRowSource,
                  let raster = source.bytes(for: target, extent: node.extent) {
            byteLeaves.append((raster, newRegister(raster.channels)))
            result = (.bytes(byteLeaves.count - 1), raster.channels)
        } else {
            buffers.append(try evaluator.evaluate(node, target))
            result = (.buffer(buffers.count - 1), channels)
        }
        memo[node.key] = result
        return result
    }

    /// The values a byte leaf or a looked-up chain gives each byte (256 × channels), with its leaf; nil otherwise.
    private func byteValues(_ operand: Operand) -> (Int, [Float])? {
        switch operand {
        case .bytes(let b): return (b, ByteTable.identity(channels: byteLeaves[b].raster.channels))
        case .lookup(let t): return (byteTables[t].leaf, byteTables[t].table)
        default: return nil
        }
    }

    /// Runs the program into a float buffer of the target region.
    func runToFloats() throws -> PixelBuffer {
        let region = target.region
        let channels = outputChannels
        let output = PixelBuffer(region: region, channels: channels) { out in
            let base = SendablePointer(out.baseAddress!)
            run { y, x0, count, result in
                let dst = base.pointer + (y * region.width + x0) * channels
                dst.update(from: result, count: count * channels)
            }
        }
        // A cancelled run skipped rows: what it made is never returned (nor kept in the cache).
        try context.checkCancelled()
        return output
    }

    /// Runs the program into 8-bit samples of the target region.
    func runToBytes() throws -> Raster<UInt8> {
        let region = target.region
        let channels = outputChannels
        var bytes = [UInt8](repeating: 0, count: region.pixelCount * channels)
        bytes.withUnsafeMutableBufferPointer { out in
            let base = SendablePointer(out.baseAddress!)
            run { y, x0, count, result in
                quantize(result, base.pointer + (y * region.width + x0) * channels, count * channels)
            }
        }
        // A cancelled run skipped rows: what it made is never returned (nor kept in the cache).
        try context.checkCancelled()
        return Raster(width: region.width, height: region.height, channels: channels, samples: bytes)
    }

    /// Evaluates every row segment of the region; `emit(row, x0, count, result)` receives the root's samples.
    private func run(_ emit: (Int, Int, Int, UnsafePointer<Float>) -> Void) {
        let region = target.region
        let width = region.width
        let segment = Self.segment
        withPointers(buffers) { bufferBases in
            context.parallelRows(region.height, samplesPerRow: width * outputChannels) { rows in
                // Per-band scratch registers.
                let scratch = registerChannels.map { UnsafeMutablePointer<Float>.allocate(capacity: segment * $0) }
                defer { scratch.forEach { $0.deallocate() } }
                let rowCaches = resampleLeaves.map { _ in HorizontalRowCache(segment: segment) }
                var operandPointers: [UnsafePointer<Float>] = []
                for y in rows {
                    var x0 = 0
                    while x0 < width {
                        let count = min(segment, width - x0)
                        for (raster, reg) in byteLeaves {
                            raster.samples.withUnsafeBufferPointer { src in
                                let c = raster.channels
                                let from = src.baseAddress! + ((region.y + y) * raster.width + region.x + x0) * c
                                let to = scratch[reg]
                                let inv = ByteTable.scale, n = count * c
                                var i = 0
                                while i + 16 <= n {
                                    let b = UnsafeRawPointer(from + i).loadUnaligned(as: SIMD16<UInt8>.self)
                                    UnsafeMutableRawPointer(to + i).storeBytes(of: SIMD16<Float>(b) * inv, as: SIMD16<Float>.self)
                                    i += 16
                                }
                                while i < n { to[i] = Float(from[i]) * inv; i += 1 }
                            }
                        }
                        for (leaf, table, reg) in byteTables {
                            let raster = byteLeaves[leaf].raster
                            let start = ((region.y + y) * raster.width + region.x + x0) * raster.channels
                            ByteTable.lookUp(raster, from: start, count: count, table: table, into: scratch[reg])
                        }
                        for (k, (leaf, reg)) in resampleLeaves.enumerated() {
                            leaf.fill(row: y, from: x0, count: count, into: scratch[reg], rows: rowCaches[k])
                        }
                        for instruction in program {
                            operandPointers.removeAll(keepingCapacity: true)
                            for (k, operand) in instruction.operands.enumerated() {
                                switch operand {
                                case .buffer(let b):
                                    operandPointers.append(bufferBases[b] + (y * width + x0) * instruction.channels[k])
                                case .bytes(let b):
                                    operandPointers.append(UnsafePointer(scratch[byteLeaves[b].register]))
                                case .resampled(let b):
                                    operandPointers.append(UnsafePointer(scratch[resampleLeaves[b].register]))
                                case .register(let r):
                                    operandPointers.append(UnsafePointer(scratch[r]))
                                case .lookup(let t):
                                    operandPointers.append(UnsafePointer(scratch[byteTables[t].register]))
                                }
                            }
                            instruction.filter.apply(inputs: operandPointers, inputChannels: instruction.channels,
                                                     output: scratch[instruction.register],
                                                     outputChannels: instruction.outputChannels, count: count)
                        }
                        emit(y, x0, count, scratch[program[program.count - 1].register])
                        x0 += count
                    }
                }
            }
        }
    }

}

/// A resampling evaluated on demand for row segments of a fused chain, with exactly the arithmetic of
/// `Resampler.run` (horizontal taps first, then vertical, same order), so the values are bit-identical to
/// the materialised plane.
struct ResampledRows {
    let resampler: Resampler
    let input: PixelBuffer
    let region: PixelRect

    /// Writes `count` pixels of output row `row` (relative to `region`) starting at column `x0` into `out`.
    /// `rows` keeps horizontally resampled input rows for the next output rows of the same worker.
    func fill(row: Int, from x0: Int, count: Int, into out: UnsafeMutablePointer<Float>, rows: HorizontalRowCache) {
        let h = resampler.horizontal, v = resampler.vertical
        let ch = input.channels, inR = input.region
        let hTaps = h.taps, vTaps = v.taps
        if ch == 1 && (hTaps == 2 || hTaps == 3) && vTaps <= 3 && count <= rows.segment {
            fillShortKernelPlane(row: row, from: x0, count: count, into: out, rows: rows)
            return
        }
        input.samples.withUnsafeBufferPointer { src in
            h.indices.withUnsafeBufferPointer { hi in
                h.weights.withUnsafeBufferPointer { hw in
                    let s = src.baseAddress!
                    for o in x0..<(x0 + count) {
                        for c in 0..<ch {
                            var acc: Float = 0
                            for kv in 0..<vTaps {
                                let w = v.weights[row * vTaps + kv]
                                if kv > 0 && w == 0 { continue }
                                let inRow = s + ((Int(v.indices[row * vTaps + kv]) - inR.y) * inR.width - inR.x) * ch
                                var hsum: Float = 0
                                for kh in 0..<hTaps { hsum += hw[o * hTaps + kh] * inRow[Int(hi[o * hTaps + kh]) * ch + c] }
                                acc = kv == 0 ? w * hsum : acc + hsum * w
                            }
                            out[(o - x0) * ch + c] = acc
                        }
                    }
                }
            }
        }
    }

    /// Writes `count` pixels of row `row` starting at frame column `startX`, columns outside the frame taking
    /// the value of its nearest edge column (clamp-to-extent), as `copyClampedRow` does for a stored plane.
    /// The columns inside the frame must lie in `region`.
    func fillClamped(row: Int, from startX: Int, count: Int, frame: PixelRect, into out: UnsafeMutablePointer<Float>,
                     rows: HorizontalRowCache) {
        let ch = input.channels
        let x0 = max(frame.x, startX), x1 = min(frame.maxX, startX + count)
        let lead = x0 - startX, inside = x1 - x0
        fill(row: row, from: x0 - region.x, count: inside, into: out + lead * ch, rows: rows)
        for i in 0..<lead { for c in 0..<ch { out[i * ch + c] = out[lead * ch + c] } }
        let last = (lead + inside - 1) * ch
        for i in (lead + inside)..<count { for c in 0..<ch { out[i * ch + c] = out[last + c] } }
    }

    /// Σ of two horizontal taps from 0 in tap order (the general loop's arithmetic).
    @inline(__always)
    static func twoTaps(_ w: UnsafePointer<Float>, _ i: UnsafePointer<Int32>, _ r: UnsafePointer<Float>, _ o: Int) -> Float {
        var hsum: Float = 0
        hsum += w[o] * r[Int(i[o])]
        hsum += w[o &+ 1] * r[Int(i[o &+ 1])]
        return hsum
    }

    /// Σ of three horizontal taps from 0 in tap order (the general loop's arithmetic).
    @inline(__always)
    static func threeTaps(_ w: UnsafePointer<Float>, _ i: UnsafePointer<Int32>, _ r: UnsafePointer<Float>, _ o: Int) -> Float {
        var hsum: Float = 0
        hsum += w[o] * r[Int(i[o])]
        hsum += w[o &+ 1] * r[Int(i[o &+ 1])]
        hsum += w[o &+ 2] * r[Int(i[o &+ 2])]
        return hsum
    }

    /// The common case: a plane with 2 or 3 taps per axis (bilinear has 3, the last of weight 0), with exactly
    /// the arithmetic of the general loop (same operations in the same order, so the same bits) but the taps
    /// unrolled, the index maths unchecked, and each input row's horizontal taps computed once for all the
    /// output rows that use it (an upscale by 2 uses each input row in four output rows).
    private func fillShortKernelPlane(row: Int, from x0: Int, count: Int, into out: UnsafeMutablePointer<Float>,
                                      rows: HorizontalRowCache) {
        let h = resampler.horizontal, v = resampler.vertical, inR = input.region
        let hTaps = h.taps, vTaps = v.taps
        input.samples.withUnsafeBufferPointer { src in
            h.indices.withUnsafeBufferPointer { hi in
                h.weights.withUnsafeBufferPointer { hw in
                    let hiP = hi.baseAddress! + x0 &* hTaps, hwP = hw.baseAddress! + x0 &* hTaps
                    for kv in 0..<vTaps {
                        let w = v.weights[row &* vTaps &+ kv]
                        if kv > 0 && w == 0 { continue }
                        let inputRow = Int(v.indices[row &* vTaps &+ kv])
                        let hsum = rows.row(inputRow, from: x0, count: count) { dst in
                            let r = src.baseAddress! + ((inputRow &- inR.y) &* inR.width &- inR.x)
                            if hTaps == 2 {
                                for k in 0..<count { dst[k] = Self.twoTaps(hwP, hiP, r, k &* 2) }
                            } else {
                                for k in 0..<count { dst[k] = Self.threeTaps(hwP, hiP, r, k &* 3) }
                            }
                        }
                        // The first vertical tap starts the sum; the loops are split so neither tests kv per pixel.
                        if kv == 0 {
                            for k in 0..<count { out[k] = w * hsum[k] }
                        } else {
                            for k in 0..<count { out[k] = out[k] + hsum[k] * w }
                        }
                    }
                }
            }
        }
    }
}

/// Horizontally resampled input rows of one fused chain's resampling, kept by one worker band: consecutive
/// output rows of an upscale read the same input rows, so each is computed once. A small ring, looked up by
/// (input row, first column, length).
final class HorizontalRowCache {
    let segment: Int
    private static let capacity = 16
    private var keys = [(row: Int, x0: Int, count: Int)](repeating: (-1, -1, -1), count: capacity)
    private let storage: UnsafeMutablePointer<Float>
    private var next = 0

    init(segment: Int) {
        self.segment = segment
        storage = .allocate(capacity: Self.capacity * segment)
    }

    deinit { storage.deallocate() }

    /// The cached row, or the row `compute` writes (at most `segment` samples) into a recycled slot.
    @inline(__always)
    func row(_ row: Int, from x0: Int, count: Int, compute: (UnsafeMutablePointer<Float>) -> Void) -> UnsafePointer<Float> {
        for slot in 0..<Self.capacity where keys[slot] == (row, x0, count) {
            return UnsafePointer(storage + slot * segment)
        }
        let slot = next
        next = (next + 1) % Self.capacity
        keys[slot] = (row, x0, count)
        compute(storage + slot * segment)
        return UnsafePointer(storage + slot * segment)
    }
}
