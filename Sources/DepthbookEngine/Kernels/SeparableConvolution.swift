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

    /// Where the horizontal pass reads its rows: a materialised plane, or a resampling made row by row.
    enum Input {
        case buffer(PixelBuffer)
        case resampled(ResampledRows)
    }

    func run(_ input: PixelBuffer, region: PixelRect, frame: PixelRect, context: RenderContext) -> PixelBuffer {
        run(.buffer(input), region: region, frame: frame, context: context)
    }

    func run(_ input: Input, region: PixelRect, frame: PixelRect, context: RenderContext) -> PixelBuffer {
        let ch: Int, inR: PixelRect, source: [Float], streamed: ResampledRows?
        switch input {
        case .buffer(let buffer):
            (ch, inR, source, streamed) = (buffer.channels, buffer.region, buffer.samples, nil)
        case .resampled(let rows):
            (ch, inR, source, streamed) = (rows.input.channels, rows.region, [], rows)
        }
        let rx = radiusX, ry = radiusY
        let rowsFirst = max(frame.y, region.y - ry), rowsEnd = min(frame.maxY, region.maxY + ry)
        let rowCount = rowsEnd - rowsFirst
        let n = region.width * ch
        let hw = horizontal, vw = vertical
        var temp = [Float](unsafeUninitializedCapacity: rowCount * n) { _, c in c = rowCount * n }
        // Per 16-sample block of every horizontal result row: its value when the block is constant, else NaN.
        let blocks = n / 16
        var blockValues = [Float](repeating: .nan, count: rowCount * blocks)
        let paddedLength = (region.width + 2 * rx) * ch
        source.withUnsafeBufferPointer { src in
            temp.withUnsafeMutableBufferPointer { tmp in
              blockValues.withUnsafeMutableBufferPointer { bv in
                let t = SendablePointer(tmp.baseAddress!), bvp = SendablePointer(bv.baseAddress!)
                context.parallelRows(rowCount, samplesPerRow: n) { band in
                    let padded = UnsafeMutablePointer<Float>.allocate(capacity: paddedLength + 8)
                    let chunkValues = UnsafeMutablePointer<Float>.allocate(capacity: paddedLength / 16 + 2)
                    defer { padded.deallocate(); chunkValues.deallocate() }
                    let rowCache = streamed.map { _ in HorizontalRowCache(segment: paddedLength) }
                    for r in band {
                        let y = rowsFirst + r
                        if let streamed, let rowCache {
                            streamed.fillClamped(row: y - inR.y, from: region.x - rx, count: region.width + 2 * rx,
                                                 frame: frame, into: padded, rows: rowCache)
                        } else {
                            let row = src.baseAddress! + (y - inR.y) * inR.width * ch
                            copyClampedRow(row, rowX: inR.x, channels: ch, startX: region.x - rx,
                                           count: region.width + 2 * rx, frame: frame, into: padded)
                        }
                        markConstantChunks(padded, paddedLength, chunkValues)
                        let out = t.pointer + r * n
                        hw.withUnsafeBufferPointer { w in
                            convolveRow(UnsafePointer(padded), stride: ch, weights: w, out: out, count: n,
                                        chunkValues: chunkValues)
                        }
                        markConstantChunks(out, blocks * 16, bvp.pointer + r * blocks)
                    }
                }
              }
            }
        }
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            // How many rows from each one down keep a block's constant value: a vertical window of rows is
            // one value when its top row's run reaches its bottom row (one test instead of one per tap).
            let runs = sameValueRuns(blockValues, rows: rowCount, columns: blocks)
            temp.withUnsafeBufferPointer { tmp in
              blockValues.withUnsafeBufferPointer { bv in
               runs.withUnsafeBufferPointer { rb in
                let t = tmp.baseAddress!, bvp = bv.baseAddress!, rp = rb.baseAddress!
                vw.withUnsafeBufferPointer { w in
                    context.parallelRows(region.height, samplesPerRow: n) { band in
                        var rows = [UnsafePointer<Float>](repeating: t, count: 2 * ry + 1)
                        for y in band {
                            for k in 0...(2 * ry) {
                                let sy = min(frame.maxY - 1, max(frame.y, region.y + y - ry + k))
                                rows[k] = t + (sy - rowsFirst) * n
                            }
                            // The clamped window covers rows top...bottom of the frame, each at least once.
                            let top = max(frame.y, region.y + y - ry) - rowsFirst
                            let bottom = min(frame.maxY - 1, region.y + y + ry) - rowsFirst
                            combineRows(rows, weights: w, out: o.pointer + y * n, count: n,
                                        blockValues: bvp + top * blocks, runs: rp + top * blocks, windowRows: bottom - top + 1)
                        }
                    }
                }
               }
              }
            }
        }
    }
}

/// runs[r][b] = how many rows from r down have the value of values[r][b] in column b (1 at least; NaN
/// never equals anything, so a NaN's run is 1).
func sameValueRuns(_ values: [Float], rows: Int, columns: Int) -> [Int32] {
    var runs = [Int32](repeating: 1, count: rows * columns)
    values.withUnsafeBufferPointer { v in
        runs.withUnsafeMutableBufferPointer { r in
            var row = rows - 2
            while row >= 0 {
                let here = row * columns, below = here + columns
                for b in 0..<columns where v[here + b] == v[below + b] { r[here + b] = r[below + b] + 1 }
                row -= 1
            }
        }
    }
    return runs
}

/// values[c] = the common value of src[16c ..< 16c + 16] (the last chunk clipped to `count`) when all its
/// samples are equal, else NaN (as it is for a chunk of NaNs).
@inline(__always)
func markConstantChunks(_ src: UnsafePointer<Float>, _ count: Int, _ values: UnsafeMutablePointer<Float>) {
    // Compared as bit patterns, OR-ed together without branches so the loop vectorises.
    let bits = UnsafeRawPointer(src).assumingMemoryBound(to: UInt32.self)
    var c = 0
    while (c + 1) * 16 <= count {
        let chunk = bits + c &* 16
        let first = chunk[0]
        var differ: UInt32 = 0
        for i in 1..<16 { differ |= chunk[i] ^ first }
        let value = Float(bitPattern: first)
        values[c] = differ == 0 && value == value ? value : .nan
        c += 1
    }
    if c * 16 < count {
        let first = src[c * 16]
        var constant = true
        for i in (c * 16 + 1)..<count where src[i] != first { constant = false; break }
        values[c] = constant ? first : .nan
    }
}

/// Whether src[start ..< start + span] is one value by the chunks it overlaps (conservative: a window inside
/// constant chunks of one value; a constant window overlapping a mixed chunk is simply convolved).
@inline(__always)
func constantWindow(_ values: UnsafePointer<Float>, start: Int, span: Int) -> Float? {
    let first = start >> 4, last = (start + span - 1) >> 4
    let c = values[first]
    if c != c { return nil }
    var k = first + 1
    while k <= last {
        if values[k] != c { return nil }
        k += 1
    }
    return c
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

/// out[j] = Σ_k w[k] · src[j + k·stride] for j in 0..<count. Blocks of 16 whose whole window lies in constant
/// 16-sample chunks of one value (`chunkValues`, from `markConstantChunks`) get `constantResponse` instead of
/// the taps: the same bits, at a fraction of the cost.
@inline(__always)
func convolveRow(_ src: UnsafePointer<Float>, stride: Int, weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int, chunkValues: UnsafePointer<Float>) {
    let taps = weights.count
    let span = 16 + (taps - 1) * stride
    var lastConstant = Float.nan, lastResponse = Float.nan
    var j = 0
    while j + 16 <= count {
        if let c = constantWindow(chunkValues, start: j, span: span) {
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

/// out[j] = Σ_k w[k] · rows[k][j] for j in 0..<count. A 16-block where every row of the window holds the same
/// constant (`blockValues` of the window's top row, whose `runs` reach `windowRows` down) gets
/// `constantResponse`: the same bits as the taps.
@inline(__always)
func combineRows(_ rows: [UnsafePointer<Float>], weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int, blockValues: UnsafePointer<Float>,
                 runs: UnsafePointer<Int32>, windowRows: Int) {
    let taps = weights.count
    var lastConstant = Float.nan, lastResponse = Float.nan
    rows.withUnsafeBufferPointer { r in
        var j = 0
        while j + 16 <= count {
            let c = blockValues[j / 16]
            if c == c {
                if Int(runs[j / 16]) >= windowRows {
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
