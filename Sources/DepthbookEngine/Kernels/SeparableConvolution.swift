/// Separable convolution of a region with the frame edge clamped (clamp-to-extent): a horizontal pass over the
/// input rows the region needs, then a vertical pass. Inner loops run 8 outputs at a time in SIMD registers.
struct SeparableConvolution {
    /// Horizontal and vertical weights, `2 * radius + 1` each, centred.
    let horizontal: [Float]
    let vertical: [Float]

    var radiusX: Int { horizontal.count / 2 }
    var radiusY: Int { vertical.count / 2 }

    /// The input region needed for `region`: grown by the radii, clipped to the frame.
    func inputRegion(for region: PixelRect, frame: PixelRect) -> PixelRect {
        region.insetBy(dx: -radiusX, dy: -radiusY).intersection(frame)
    }

    func run(_ input: PixelBuffer, region: PixelRect, frame: PixelRect, context: RenderContext) -> PixelBuffer {
        let ch = input.channels
        let rx = radiusX, ry = radiusY
        let inR = input.region
        let rowsFirst = max(frame.y, region.y - ry), rowsEnd = min(frame.maxY, region.maxY + ry)
        let rowCount = rowsEnd - rowsFirst
        let n = region.width * ch
        let hw = horizontal, vw = vertical
        var temp = [Float](unsafeUninitializedCapacity: rowCount * n) { _, c in c = rowCount * n }
        // Per 16-sample block of every horizontal result row: its value when the block is constant, else NaN.
        let blocks = n / 16
        var blockValues = [Float](repeating: .nan, count: rowCount * blocks)
        let paddedLength = (region.width + 2 * rx) * ch
        input.samples.withUnsafeBufferPointer { src in
            temp.withUnsafeMutableBufferPointer { tmp in
              blockValues.withUnsafeMutableBufferPointer { bv in
                let s = src.baseAddress!, t = SendablePointer(tmp.baseAddress!), bvp = SendablePointer(bv.baseAddress!)
                context.parallelRows(rowCount, samplesPerRow: n) { band in
                    let padded = UnsafeMutablePointer<Float>.allocate(capacity: paddedLength + 8)
                    let runEnd = UnsafeMutablePointer<Int32>.allocate(capacity: paddedLength + 8)
                    defer { padded.deallocate(); runEnd.deallocate() }
                    for r in band {
                        let y = rowsFirst + r
                        let row = s + (y - inR.y) * inR.width * ch
                        copyClampedRow(row, rowX: inR.x, channels: ch, startX: region.x - rx,
                                       count: region.width + 2 * rx, frame: frame, into: padded)
                        markRuns(padded, paddedLength, runEnd)
                        let out = t.pointer + r * n
                        hw.withUnsafeBufferPointer { w in
                            convolveRow(UnsafePointer(padded), stride: ch, weights: w, out: out, count: n, runEnd: runEnd)
                        }
                        for b in 0..<blocks {
                            let v = out[b * 16]
                            var constant = true
                            for i in 1..<16 where out[b * 16 + i] != v { constant = false; break }
                            bvp.pointer[r * blocks + b] = constant ? v : .nan
                        }
                    }
                }
              }
            }
        }
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            temp.withUnsafeBufferPointer { tmp in
              blockValues.withUnsafeBufferPointer { bv in
                let t = tmp.baseAddress!, bvp = bv.baseAddress!
                vw.withUnsafeBufferPointer { w in
                    context.parallelRows(region.height, samplesPerRow: n) { band in
                        var rows = [UnsafePointer<Float>](repeating: t, count: 2 * ry + 1)
                        var rowBlocks = [UnsafePointer<Float>](repeating: bvp, count: 2 * ry + 1)
                        for y in band {
                            for k in 0...(2 * ry) {
                                let sy = min(frame.maxY - 1, max(frame.y, region.y + y - ry + k))
                                rows[k] = t + (sy - rowsFirst) * n
                                rowBlocks[k] = bvp + (sy - rowsFirst) * blocks
                            }
                            combineRows(rows, weights: w, out: o.pointer + y * n, count: n, blockValues: rowBlocks)
                        }
                    }
                }
              }
            }
        }
    }
}

/// runEnd[i] = the first index after i whose value differs from src[i] (NaN never equals anything).
@inline(__always)
func markRuns(_ src: UnsafePointer<Float>, _ count: Int, _ runEnd: UnsafeMutablePointer<Int32>) {
    if count == 0 { return }
    runEnd[count - 1] = Int32(count)
    var i = count - 2
    while i >= 0 {
        runEnd[i] = src[i] == src[i + 1] ? runEnd[i + 1] : Int32(i + 1)
        i -= 1
    }
}

/// Σ_k w[k] · c summed in tap order: bit for bit what the SIMD loops give for a constant window. Every sum
/// here is a chain of fused multiply-adds (one rounding per tap), in the SIMD loops and the scalar ones alike,
/// so a pixel's value does not depend on which loop computed it.
@inline(__always)
func constantResponse(_ c: Float, _ weights: UnsafeBufferPointer<Float>) -> Float {
    var a: Float = 0
    for k in 0..<weights.count { a = a.addingProduct(weights[k], c) }
    return a
}

/// out[j] = Σ_k w[k] · src[j + k·stride] for j in 0..<count. Blocks of 16 whose whole window is one value
/// (per `runEnd`) get `constantResponse` instead of the taps: the same bits, at a fraction of the cost.
@inline(__always)
func convolveRow(_ src: UnsafePointer<Float>, stride: Int, weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int, runEnd: UnsafePointer<Int32>) {
    let taps = weights.count
    let span = 16 + (taps - 1) * stride
    var lastConstant = Float.nan, lastResponse = Float.nan
    var j = 0
    while j + 16 <= count {
        if Int(runEnd[j]) >= j + span {
            let c = src[j]
            if c != lastConstant {
                lastConstant = c
                lastResponse = constantResponse(c, weights)
            }
            for i in 0..<16 { out[j + i] = lastResponse }
            j += 16
            continue
        }
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        for k in 0..<taps {
            let w = SIMD8<Float>(repeating: weights[k])
            let p = UnsafeRawPointer(src + j + k * stride)
            a0 = a0.addingProduct(w, p.loadUnaligned(as: SIMD8<Float>.self))
            a1 = a1.addingProduct(w, p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
        }
        UnsafeMutableRawPointer(out + j).storeBytes(of: a0, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(out + j + 8).storeBytes(of: a1, as: SIMD8<Float>.self)
        j += 16
    }
    while j < count {
        var a: Float = 0
        for k in 0..<taps { a = a.addingProduct(weights[k], src[j + k * stride]) }
        out[j] = a
        j += 1
    }
}

/// out[j] = Σ_k w[k] · rows[k][j] for j in 0..<count. A 16-block where every row's block is the same
/// constant (`blockValues[k][block]`) gets `constantResponse`: the same bits as the taps.
@inline(__always)
func combineRows(_ rows: [UnsafePointer<Float>], weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int, blockValues: [UnsafePointer<Float>]) {
    let taps = weights.count
    var lastConstant = Float.nan, lastResponse = Float.nan
    rows.withUnsafeBufferPointer { r in
        var j = 0
        while j + 16 <= count {
            let c = blockValues[0][j / 16]
            if c == c {
                var same = true
                for k in 1..<taps where blockValues[k][j / 16] != c { same = false; break }
                if same {
                    if c != lastConstant {
                        lastConstant = c
                        lastResponse = constantResponse(c, weights)
                    }
                    for i in 0..<16 { out[j + i] = lastResponse }
                    j += 16
                    continue
                }
            }
            var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
            for k in 0..<taps {
                let w = SIMD8<Float>(repeating: weights[k])
                let p = UnsafeRawPointer(r[k] + j)
                a0 = a0.addingProduct(w, p.loadUnaligned(as: SIMD8<Float>.self))
                a1 = a1.addingProduct(w, p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            }
            UnsafeMutableRawPointer(out + j).storeBytes(of: a0, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(out + j + 8).storeBytes(of: a1, as: SIMD8<Float>.self)
            j += 16
        }
        while j < count {
            var a: Float = 0
            for k in 0..<taps { a = a.addingProduct(weights[k], r[k][j]) }
            out[j] = a
            j += 1
        }
    }
}

/// Normalised Gaussian weights for `sigma` (in pixels), truncated at ±ceil(truncate·sigma).
func gaussianWeights(sigma: Double, truncate: Double = 3) -> [Float] {
    if sigma < 1e-3 { return [1] }
    let radius = Int((truncate * sigma).rounded(.up))
    var w = (-radius...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
    let sum = w.reduce(0, +)
    w = w.map { $0 / sum }
    return w.map { Float($0) }
}

import func Foundation.exp
