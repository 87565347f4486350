/// Bokeh: the mean over a true disc x² + y² ≤ r² (not a box or Gaussian approximation), edges clamped.
/// Core Image: CIDiscBlur (whose own disc is approximated; this one is exact).
///
/// Each row of the input gets a prefix sum anchored at the frame's column 0, so a disc row span is two
/// loads and a subtraction (2r + 1 spans per pixel, independent of the disc's area), and the result is the
/// same for any region or band it is computed in.
public struct DiscBlur: OneInputFilter {
    public static let info = FilterInfo(
        name: "discBlur", coreImageName: "CIDiscBlur",
        summary: "Mean over a flat disc (lens bokeh), edges clamped.",
        parameters: [
            ParameterInfo("radius", range: 0...200, unit: "px",
                          doc: "Disc radius in pixels at native resolution; pixels with x² + y² ≤ r² are averaged."),
        ])

    public let radius: Double

    public init(radius: Double) throws {
        try Self.info.validate("radius", radius)
        self.radius = radius
    }

    public var parameterKey: String { "r=\(radius)" }

    /// Half-widths of the disc's rows dy = −R...R, R = ⌊r⌋.
    static func halfWidths(radius r: Double) -> [Int] {
        let reach = Int(r.rounded(.down))
        return (-reach...reach).map { dy in Int((r * r - Double(dy * dy)).squareRoot().rounded(.down)) }
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let reach = Int((radius * Double(target.size.width) / Double(extent.width)).rounded(.down))
        let r = target.region
        // From column 0: the prefix sums are anchored there.
        return [target.with(region: PixelRect(x: 0, y: r.y - reach, width: r.maxX + reach, height: r.height + 2 * reach))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, frame = request.target.frame
        let widths = Self.halfWidths(radius: radius * request.scale)
        let reach = widths.count / 2
        let ch = input.channels
        let count = Float(widths.reduce(0) { $0 + 2 * $1 + 1 })
        let norm = 1 / count
        let inR = input.region
        // Prefix row layout: index p = column + reach + 1 for column in −reach..<region.maxX+reach; P[0] = 0.
        let prefixLength = (region.maxX + 2 * reach + 1) * ch
        let n = region.width * ch
        let band = max(32, 4 * reach)
        let bands = (region.height + band - 1) / band
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            input.samples.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                context.parallelRows(bands, minimumBand: 1) { bandRange in
                    let rowsNeeded = band + 2 * reach
                    let prefix = UnsafeMutablePointer<Float>.allocate(capacity: rowsNeeded * prefixLength)
                    defer { prefix.deallocate() }
                    for b in bandRange {
                        let y0 = region.y + b * band, y1 = min(region.maxY, y0 + band)
                        let first = y0 - reach
                        // Prefix sums of the rows y0−reach ..< y1+reach (clamped to the frame).
                        for k in 0..<(y1 - y0 + 2 * reach) {
                            let sy = min(frame.maxY - 1, max(frame.y, first + k))
                            let row = s + (sy - inR.y) * inR.width * ch
                            let p = prefix + k * prefixLength
                            for c in 0..<ch { p[c] = 0 }
                            var i = ch
                            for column in -reach..<(region.maxX + reach) {
                                let x = min(frame.maxX - 1, max(0, column)) - inR.x
                                for c in 0..<ch {
                                    p[i] = p[i - ch] + row[x * ch + c]
                                    i += 1
                                }
                            }
                        }
                        let spans = widths.count
                        let his = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: spans)
                        let los = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: spans)
                        defer { his.deallocate(); los.deallocate() }
                        for y in y0..<y1 {
                            // Span [x − w, x + w] of row d → P[x + w + reach + 1] − P[x − w + reach].
                            for (d, w) in widths.enumerated() {
                                let p = UnsafePointer(prefix + (y - y0 + d) * prefixLength)
                                his[d] = p + (region.x + w + reach + 1) * ch
                                los[d] = p + (region.x - w + reach) * ch
                            }
                            sumSpans(his, los, spans, norm, o.pointer + (y - region.y) * n, n)
                        }
                    }
                }
            }
        }
    }
}

/// dst[j] = norm · Σ_d (his[d][j] − los[d][j]), 16 samples at a time in registers.
@inline(__always)
func sumSpans(_ his: UnsafePointer<UnsafePointer<Float>>, _ los: UnsafePointer<UnsafePointer<Float>>, _ spans: Int,
              _ norm: Float, _ dst: UnsafeMutablePointer<Float>, _ n: Int) {
    var j = 0
    let scale = SIMD8<Float>(repeating: norm)
    while j + 16 <= n {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        for d in 0..<spans {
            let h = UnsafeRawPointer(his[d] + j), l = UnsafeRawPointer(los[d] + j)
            a0 += h.loadUnaligned(as: SIMD8<Float>.self) - l.loadUnaligned(as: SIMD8<Float>.self)
            a1 += h.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self) - l.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
        }
        UnsafeMutableRawPointer(dst + j).storeBytes(of: a0 * scale, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(dst + j + 8).storeBytes(of: a1 * scale, as: SIMD8<Float>.self)
        j += 16
    }
    while j < n {
        var a: Float = 0
        for d in 0..<spans { a += his[d][j] - los[d][j] }
        dst[j] = a * norm
        j += 1
    }
}
