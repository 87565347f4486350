/// Separable resampling of a buffer region: a horizontal pass over the input rows needed, then a vertical pass.
struct Resampler {
    let horizontal: TapTable
    let vertical: TapTable
    /// Skip NaN taps and renormalise (depth holes never averaged with real values); NaN only when every tap is.
    let skipsNaN: Bool

    /// Taps for `region` of a frame of `outSize` made from a frame of `inSize`.
    init(inSize: PixelSize, outSize: PixelSize, region: PixelRect, method: ResamplingMethod, antialias: Bool,
         skipsNaN: Bool) {
        horizontal = TapTable(inSize: inSize.width, outSize: outSize.width, first: region.x, count: region.width,
                              method: method, antialias: antialias)
        vertical = TapTable(inSize: inSize.height, outSize: outSize.height, first: region.y, count: region.height,
                            method: method, antialias: antialias)
        self.skipsNaN = skipsNaN
    }

    /// The input rectangle the taps read.
    var inputRegion: PixelRect {
        PixelRect(x: horizontal.lowest, y: vertical.lowest, width: horizontal.highest - horizontal.lowest + 1,
                  height: vertical.highest - vertical.lowest + 1)
    }

    /// Resamples `read(x, y, c)`-addressable input (a buffer covering `inputRegion`) into `region`.
    func run(input: PixelBuffer, region: PixelRect, context: RenderContext) -> PixelBuffer {
        let ch = input.channels
        let inRegion = input.region
        let rows = inputRegion
        let outW = region.width
        let hTaps = horizontal.taps, vTaps = vertical.taps
        // Horizontal pass: every input row the vertical taps read, at output width.
        var temp = [Float](repeating: 0, count: rows.height * outW * ch)
        let skipsNaN = self.skipsNaN
        input.samples.withUnsafeBufferPointer { src in
            horizontal.indices.withUnsafeBufferPointer { hi in
                horizontal.weights.withUnsafeBufferPointer { hw in
                    temp.withUnsafeMutableBufferPointer { tmp in
                        let s = src.baseAddress!, t = SendablePointer(tmp.baseAddress!)
                        let hiP = hi.baseAddress!, hwP = hw.baseAddress!
                        context.parallelRows(rows.height, samplesPerRow: outW * ch * hTaps) { band in
                            for r in band {
                                let inRow = s + ((rows.y + r - inRegion.y) * inRegion.width - inRegion.x) * ch
                                let outRow = t.pointer + r * outW * ch
                                if !skipsNaN && ch == 1 {
                                    for o in 0..<outW {
                                        var acc: Float = 0
                                        for k in 0..<hTaps { acc += hwP[o * hTaps + k] * inRow[Int(hiP[o * hTaps + k])] }
                                        outRow[o] = acc
                                    }
                                    continue
                                }
                                if !skipsNaN {
                                    for o in 0..<outW {
                                        for c in 0..<ch {
                                            var acc: Float = 0
                                            for k in 0..<hTaps { acc += hwP[o * hTaps + k] * inRow[Int(hiP[o * hTaps + k]) * ch + c] }
                                            outRow[o * ch + c] = acc
                                        }
                                    }
                                    continue
                                }
                                for o in 0..<outW {
                                    for c in 0..<ch {
                                        var sum = AnchoredSum()
                                        for k in 0..<hTaps {
                                            sum.add(inRow[Int(hiP[o * hTaps + k]) * ch + c], weight: hwP[o * hTaps + k])
                                        }
                                        outRow[o * ch + c] = sum.value
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Vertical pass.
        let rowLength = outW * ch
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            temp.withUnsafeBufferPointer { tmp in
                let t = tmp.baseAddress!
                context.parallelRows(region.height, samplesPerRow: rowLength * vTaps) { band in
                    for y in band {
                        let dst = o.pointer + y * rowLength
                        if skipsNaN {
                            for j in 0..<rowLength {
                                var sum = AnchoredSum()
                                for k in 0..<vTaps {
                                    sum.add(t[(Int(vertical.indices[y * vTaps + k]) - rows.y) * rowLength + j],
                                            weight: vertical.weights[y * vTaps + k])
                                }
                                dst[j] = sum.value
                            }
                        } else {
                            let w0 = vertical.weights[y * vTaps]
                            let src0 = t + (Int(vertical.indices[y * vTaps]) - rows.y) * rowLength
                            scaleRow(src0, w0, dst, rowLength)
                            for k in 1..<max(1, vTaps) {
                                let w = vertical.weights[y * vTaps + k]
                                if w == 0 { continue }
                                let src = t + (Int(vertical.indices[y * vTaps + k]) - rows.y) * rowLength
                                accumulateRow(src, w, dst, rowLength)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A weighted mean of the taps that are not NaN, taken as differences from the first such tap: where every tap
/// has the same value the mean is that value exactly, not a value one rounding away. (A threshold whose cut is
/// a flat region's own value otherwise keeps some resampled pixels of it and drops others, in a grid.)
struct AnchoredSum {
    private var anchor: Float = .nan
    private var acc: Float = 0
    private var weights: Float = 0

    @inline(__always)
    mutating func add(_ v: Float, weight w: Float) {
        if v.isNaN || w == 0 { return }
        if anchor.isNaN { anchor = v }
        acc += w * (v - anchor)
        weights += w
    }

    /// NaN when every tap was.
    var value: Float { weights > 0 ? anchor + acc / weights : .nan }
}

/// dst[i] = w · src[i].
@inline(__always)
func scaleRow(_ src: UnsafePointer<Float>, _ w: Float, _ dst: UnsafeMutablePointer<Float>, _ n: Int) {
    var i = 0
    let wv = SIMD8<Float>(repeating: w)
    while i + 8 <= n {
        let v = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(dst + i).storeBytes(of: v * wv, as: SIMD8<Float>.self)
        i += 8
    }
    while i < n { dst[i] = src[i] * w; i += 1 }
}

/// dst[i] += w · src[i].
@inline(__always)
func accumulateRow(_ src: UnsafePointer<Float>, _ w: Float, _ dst: UnsafeMutablePointer<Float>, _ n: Int) {
    var i = 0
    let wv = SIMD8<Float>(repeating: w)
    while i + 8 <= n {
        let v = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self)
        let d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(dst + i).storeBytes(of: d + v * wv, as: SIMD8<Float>.self)
        i += 8
    }
    while i < n { dst[i] += src[i] * w; i += 1 }
}
