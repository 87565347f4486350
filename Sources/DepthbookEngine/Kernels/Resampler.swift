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

    /// Resamples `input` (a buffer covering `inputRegion`) into `region`.
    func run(input: PixelBuffer, region: PixelRect, context: RenderContext) -> PixelBuffer {
        input.samples.withUnsafeBufferPointer { src in
            run(samples: src.baseAddress!, covering: input.region, channels: input.channels, scale: 1,
                region: region, context: context)
        }
    }

    /// Resamples 8-bit samples (a photo's own bytes, covering `inRegion`) read as `value · scale`: a reduced
    /// photo never needs the full-size float copy (146 MB at 12 MP) that converting first would take.
    func run(bytes: UnsafePointer<UInt8>, covering inRegion: PixelRect, channels: Int, scale: Float,
             region: PixelRect, context: RenderContext) -> PixelBuffer {
        run(samples: bytes, covering: inRegion, channels: channels, scale: scale, region: region, context: context)
    }

    /// Output rows per band: each band runs the horizontal pass over only the input rows its vertical taps read,
    /// so the intermediate is a band's worth (about 3 MB for a 2048-px frame of a 12 MP photo), not the whole
    /// frame at output width (74 MB).
    static let bandRows = 64

    private func run<Sample: ResampledSample>(samples: UnsafePointer<Sample>, covering inRegion: PixelRect,
                                              channels ch: Int, scale: Float, region: PixelRect,
                                              context: RenderContext) -> PixelBuffer {
        let bands = stride(from: 0, to: region.height, by: Self.bandRows).map { start in
            start..<min(region.height, start + Self.bandRows)
        }
        let inputRows = bands.map { vertical.inputRange(outputs: $0) }
        var temp = [Float](repeating: 0, count: (inputRows.map(\.count).max() ?? 0) * region.width * ch)
        return PixelBuffer(region: region, channels: ch) { out in
            temp.withUnsafeMutableBufferPointer { tmp in
                for (band, rows) in zip(bands, inputRows) {
                    horizontalPass(samples, covering: inRegion, channels: ch, scale: scale, rows: rows,
                                   width: region.width, into: tmp.baseAddress!, context: context)
                    verticalPass(tmp.baseAddress!, firstRow: rows.lowerBound, outputs: band, rowLength: region.width * ch,
                                 into: out.baseAddress!, context: context)
                }
            }
        }
    }

    /// Input rows `rows`, resampled to `width` outputs each, into `temp` (row r at `(r - rows.lowerBound) · width · ch`).
    private func horizontalPass<Sample: ResampledSample>(_ samples: UnsafePointer<Sample>, covering inRegion: PixelRect,
                                                         channels ch: Int, scale: Float, rows: Range<Int>, width outW: Int,
                                                         into temp: UnsafeMutablePointer<Float>, context: RenderContext) {
        let hTaps = horizontal.taps
        let skipsNaN = self.skipsNaN
        let s = SendablePointer(UnsafeMutablePointer(mutating: samples)), t = SendablePointer(temp)
        horizontal.indices.withUnsafeBufferPointer { hi in
            horizontal.weights.withUnsafeBufferPointer { hw in
                let hiP = hi.baseAddress!, hwP = hw.baseAddress!
                context.parallelRows(rows.count, samplesPerRow: outW * ch * hTaps) { band in
                    for r in band {
                        let inRow = s.pointer + ((rows.lowerBound + r - inRegion.y) * inRegion.width - inRegion.x) * ch
                        let outRow = t.pointer + r * outW * ch
                        if !skipsNaN && ch == 1 {
                            for o in 0..<outW {
                                var acc: Float = 0
                                for k in 0..<hTaps { acc += hwP[o * hTaps + k] * inRow[Int(hiP[o * hTaps + k])].floatValue }
                                outRow[o] = acc * scale
                            }
                            continue
                        }
                        if !skipsNaN && ch == 3 {
                            // The three channels in one walk over the taps: each tap's index and weight read once
                            // (a third of the loads of the general loop), each channel summed in the same order.
                            for o in 0..<outW {
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for k in 0..<hTaps {
                                    let w = hwP[o * hTaps + k], pixel = inRow + Int(hiP[o * hTaps + k]) * 3
                                    r += w * pixel[0].floatValue
                                    g += w * pixel[1].floatValue
                                    b += w * pixel[2].floatValue
                                }
                                outRow[o * 3] = r * scale
                                outRow[o * 3 + 1] = g * scale
                                outRow[o * 3 + 2] = b * scale
                            }
                            continue
                        }
                        if !skipsNaN {
                            for o in 0..<outW {
                                for c in 0..<ch {
                                    var acc: Float = 0
                                    for k in 0..<hTaps { acc += hwP[o * hTaps + k] * inRow[Int(hiP[o * hTaps + k]) * ch + c].floatValue }
                                    outRow[o * ch + c] = acc * scale
                                }
                            }
                            continue
                        }
                        for o in 0..<outW {
                            for c in 0..<ch {
                                var sum = AnchoredSum()
                                for k in 0..<hTaps {
                                    sum.add(inRow[Int(hiP[o * hTaps + k]) * ch + c].floatValue, weight: hwP[o * hTaps + k])
                                }
                                outRow[o * ch + c] = sum.value * scale
                            }
                        }
                    }
                }
            }
        }
    }

    /// Output rows `outputs` (relative to the region) from the horizontal pass's rows, which start at input row `firstRow`.
    private func verticalPass(_ temp: UnsafeMutablePointer<Float>, firstRow: Int, outputs: Range<Int>, rowLength: Int,
                              into out: UnsafeMutablePointer<Float>, context: RenderContext) {
        let vTaps = vertical.taps
        let skipsNaN = self.skipsNaN
        let o = SendablePointer(out), tp = SendablePointer(temp)
        context.parallelRows(outputs.count, samplesPerRow: rowLength * vTaps) { band in
            let t = tp.pointer
            for y in band.lazy.map({ $0 + outputs.lowerBound }) {
                let dst = o.pointer + y * rowLength
                if skipsNaN {
                    for j in 0..<rowLength {
                        var sum = AnchoredSum()
                        for k in 0..<vTaps {
                            sum.add(t[(Int(vertical.indices[y * vTaps + k]) - firstRow) * rowLength + j],
                                    weight: vertical.weights[y * vTaps + k])
                        }
                        dst[j] = sum.value
                    }
                } else {
                    let w0 = vertical.weights[y * vTaps]
                    let src0 = t + (Int(vertical.indices[y * vTaps]) - firstRow) * rowLength
                    scaleRow(src0, w0, dst, rowLength)
                    for k in 1..<max(1, vTaps) {
                        let w = vertical.weights[y * vTaps + k]
                        if w == 0 { continue }
                        let src = t + (Int(vertical.indices[y * vTaps + k]) - firstRow) * rowLength
                        accumulateRow(src, w, dst, rowLength)
                    }
                }
            }
        }
    }
}

/// What the resampler reads: float planes, or a photo's 8-bit samples as they are.
protocol ResampledSample {
    var floatValue: Float { get }
}

extension Float: ResampledSample {
    @inline(__always) var floatValue: Float { self }
}

extension UInt8: ResampledSample {
    @inline(__always) var floatValue: Float { Float(self) }
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
