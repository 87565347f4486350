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
        input.samples.withUnsafeBufferPointer { src in
            temp.withUnsafeMutableBufferPointer { tmp in
                let s = src.baseAddress!, t = SendablePointer(tmp.baseAddress!)
                context.parallelRows(rowCount) { band in
                    let padded = UnsafeMutablePointer<Float>.allocate(capacity: (region.width + 2 * rx) * ch + 8)
                    defer { padded.deallocate() }
                    for r in band {
                        let y = rowsFirst + r
                        let row = s + (y - inR.y) * inR.width * ch
                        for i in 0..<(region.width + 2 * rx) {
                            let x = min(frame.maxX - 1, max(frame.x, region.x - rx + i))
                            for c in 0..<ch { padded[i * ch + c] = row[(x - inR.x) * ch + c] }
                        }
                        hw.withUnsafeBufferPointer { w in
                            convolveRow(UnsafePointer(padded), stride: ch, weights: w, out: t.pointer + r * n, count: n)
                        }
                    }
                }
            }
        }
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            temp.withUnsafeBufferPointer { tmp in
                let t = tmp.baseAddress!
                vw.withUnsafeBufferPointer { w in
                    context.parallelRows(region.height) { band in
                        var rows = [UnsafePointer<Float>](repeating: t, count: 2 * ry + 1)
                        for y in band {
                            for k in 0...(2 * ry) {
                                let sy = min(frame.maxY - 1, max(frame.y, region.y + y - ry + k))
                                rows[k] = t + (sy - rowsFirst) * n
                            }
                            combineRows(rows, weights: w, out: o.pointer + y * n, count: n)
                        }
                    }
                }
            }
        }
    }
}

/// out[j] = Σ_k w[k] · src[j + k·stride] for j in 0..<count.
@inline(__always)
func convolveRow(_ src: UnsafePointer<Float>, stride: Int, weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int) {
    let taps = weights.count
    var j = 0
    while j + 16 <= count {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        for k in 0..<taps {
            let w = SIMD8<Float>(repeating: weights[k])
            let p = UnsafeRawPointer(src + j + k * stride)
            a0 += w * p.loadUnaligned(as: SIMD8<Float>.self)
            a1 += w * p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
        }
        UnsafeMutableRawPointer(out + j).storeBytes(of: a0, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(out + j + 8).storeBytes(of: a1, as: SIMD8<Float>.self)
        j += 16
    }
    while j < count {
        var a: Float = 0
        for k in 0..<taps { a += weights[k] * src[j + k * stride] }
        out[j] = a
        j += 1
    }
}

/// out[j] = Σ_k w[k] · rows[k][j] for j in 0..<count.
@inline(__always)
func combineRows(_ rows: [UnsafePointer<Float>], weights: UnsafeBufferPointer<Float>,
                 out: UnsafeMutablePointer<Float>, count: Int) {
    let taps = weights.count
    rows.withUnsafeBufferPointer { r in
        var j = 0
        while j + 16 <= count {
            var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
            for k in 0..<taps {
                let w = SIMD8<Float>(repeating: weights[k])
                let p = UnsafeRawPointer(r[k] + j)
                a0 += w * p.loadUnaligned(as: SIMD8<Float>.self)
                a1 += w * p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            }
            UnsafeMutableRawPointer(out + j).storeBytes(of: a0, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(out + j + 8).storeBytes(of: a1, as: SIMD8<Float>.self)
            j += 16
        }
        while j < count {
            var a: Float = 0
            for k in 0..<taps { a += weights[k] * r[k][j] }
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
