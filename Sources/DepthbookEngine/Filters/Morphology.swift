/// Grey-level dilation, erosion, opening and closing of a plane (or each channel of an image), with a disc
/// (x² + y² ≤ r²) or square (|x|, |y| ≤ r) element. Edges are clamped; NaN holes are ignored (a window of
/// holes only stays a hole). Core Image: CIMorphologyMaximum/Minimum (disc), CIMorphologyRectangleMaximum/Minimum.
///
/// Cost per pixel: constant in r for the square (separable running extremum); for the disc one running
/// extremum per distinct row width, then 2r + 1 comparisons down the column.
public struct Morphology: OneInputFilter {
    public enum Operation: String, Sendable, CaseIterable {
        case dilate, erode, open, close
    }

    public enum Shape: String, Sendable, CaseIterable {
        case disc, square
    }

    public static let info = FilterInfo(
        name: "morphology", coreImageName: "CIMorphologyMaximum / CIMorphologyMinimum / CIMorphologyRectangle*",
        summary: "Dilate (max), erode (min), open (erode then dilate) or close (dilate then erode).",
        parameters: [
            ParameterInfo("radius", range: 0...256, unit: "px",
                          doc: "Element radius in pixels at native resolution (disc: x² + y² ≤ r²; square: half side)."),
        ])

    public let operation: Operation
    public let shape: Shape
    public let radius: Double

    public init(_ operation: Operation, shape: Shape = .disc, radius: Double) throws {
        try Self.info.validate("radius", radius)
        self.operation = operation
        self.shape = shape
        self.radius = radius
    }

    public var parameterKey: String { "\(operation.rawValue),\(shape.rawValue),r=\(radius)" }

    var passes: [Bool] {  // true = max
        switch operation {
        case .dilate: return [true]
        case .erode: return [false]
        case .open: return [false, true]
        case .close: return [true, false]
        }
    }

    /// Half-widths of the element's rows dy = −R...R.
    func halfWidths(scale: Double) -> [Int] {
        let r = radius * scale
        let reach = Int(r.rounded(.down))
        if shape == .square { return [Int](repeating: reach, count: 2 * reach + 1) }
        return (-reach...reach).map { dy in Int((r * r - Double(dy * dy)).squareRoot().rounded(.down)) }
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let reach = halfWidths(scale: Double(target.size.width) / Double(extent.width)).count / 2
        return [grown(target, by: reach * passes.count)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let widths = halfWidths(scale: request.scale)
        let reach = widths.count / 2
        let frame = request.target.frame
        // Holes become the identity of the operation, and back to holes at the end.
        var current = inputs[0]
        let hadHoles = current.samples.contains { $0.isNaN }
        var remaining = passes.count
        for isMax in passes {
            remaining -= 1
            if hadHoles {
                let fill: Float = isMax ? -.infinity : .infinity
                current.samples = current.samples.map { $0.isNaN || $0.isInfinite ? fill : $0 }
            }
            let region = request.region.outset(by: reach * remaining).intersection(frame)
            current = Self.pass(current, region: region, frame: frame, widths: widths, isMax: isMax, context: context)
            try context.checkCancelled()
        }
        if hadHoles { current.samples = current.samples.map { $0.isInfinite ? .nan : $0 } }
        return current
    }

    /// One dilation (isMax) or erosion of `input` over `region`.
    static func pass(_ input: PixelBuffer, region: PixelRect, frame: PixelRect, widths: [Int], isMax: Bool,
                     context: RenderContext) -> PixelBuffer {
        let reach = widths.count / 2
        let distinct = Array(Set(widths)).sorted()
        let ch = input.channels
        let inR = input.region
        let rowsFirst = max(frame.y, region.y - reach), rowsEnd = min(frame.maxY, region.maxY + reach)
        let rowCount = rowsEnd - rowsFirst
        let n = region.width
        let ext = RunningExtremum(isMax: isMax)
        // Growing every half-width by one step costs two vector comparisons per pixel per step; the block
        // algorithm three scalar passes per distinct width. Steps win for discs and small squares.
        let useSteps = (distinct.last ?? 0) < 12 * distinct.count
        // Horizontal extremum of every needed row, for every distinct half-width: [width][row][x][c].
        let planeLength = rowCount * n * ch
        var horizontal = [Float](repeating: 0, count: distinct.count * planeLength)
        input.samples.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { hb in
                let s = src.baseAddress!, h = SendablePointer(hb.baseAddress!)
                let maxW = distinct.last ?? 0
                context.parallelRows(rowCount, samplesPerRow: n * ch * max(1, maxW)) { band in
                    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4 * (n + 2 * maxW + 1))
                    defer { scratch.deallocate() }
                    let padded = scratch, fwd = scratch + (n + 2 * maxW + 1)
                    let bwd = fwd + (n + 2 * maxW + 1), out = bwd + (n + 2 * maxW + 1)
                    var planes = [UnsafeMutablePointer<Float>](repeating: h.pointer, count: distinct.count)
                    for r in band {
                        let row = s + (rowsFirst + r - inR.y) * inR.width * ch
                        if ch == 1 && useSteps {
                            // One padded copy, then every half-width grown one step at a time.
                            copyClampedRow(row, rowX: inR.x, channels: 1, startX: region.x - maxW, count: n + 2 * maxW,
                                           frame: frame, into: padded)
                            for i in planes.indices { planes[i] = h.pointer + i * planeLength + r * n }
                            growingExtremum(padded, maxWidth: maxW, count: n, isMax: isMax, widths: distinct, into: planes)
                            continue
                        }
                        for c in 0..<ch {
                            for (wi, w) in distinct.enumerated() {
                                if ch == 1 {
                                    copyClampedRow(row, rowX: inR.x, channels: 1, startX: region.x - w, count: n + 2 * w,
                                                   frame: frame, into: padded)
                                } else {
                                    for i in 0..<(n + 2 * w) {
                                        let x = min(frame.maxX - 1, max(frame.x, region.x - w + i))
                                        padded[i] = row[(x - inR.x) * ch + c]
                                    }
                                }
                                ext.run(padded, window: 2 * w + 1, count: n, out: out, forward: fwd, backward: bwd)
                                let dst = h.pointer + wi * planeLength + r * n * ch
                                for x in 0..<n { dst[x * ch + c] = out[x] }
                            }
                        }
                    }
                }
            }
        }
        let widthIndex = widths.map { w in distinct.firstIndex(of: w)! }
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            horizontal.withUnsafeBufferPointer { hb in
                let h = hb.baseAddress!
                context.parallelRows(region.height, samplesPerRow: n * ch * widths.count) { band in
                    for y in band {
                        let dst = o.pointer + y * n * ch
                        for (d, wi) in widthIndex.enumerated() {
                            let sy = min(frame.maxY - 1, max(frame.y, region.y + y - reach + d))
                            let src = h + wi * planeLength + (sy - rowsFirst) * n * ch
                            if d == 0 {
                                dst.update(from: src, count: n * ch)
                            } else if isMax {
                                extremumRow(src, dst, n * ch, isMax: true)
                            } else {
                                extremumRow(src, dst, n * ch, isMax: false)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// dst[i] = max(dst[i], src[i]) (or min).
@inline(__always)
func extremumRow(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ n: Int, isMax: Bool) {
    if isMax {
        for i in 0..<n { let a = src[i], b = dst[i]; dst[i] = a > b ? a : b }
    } else {
        for i in 0..<n { let a = src[i], b = dst[i]; dst[i] = a < b ? a : b }
    }
}

/// Horizontal extremum of a padded row for every half-width in `widths` (ascending): out[w][x] = extremum of
/// padded[x + maxWidth − w ... x + maxWidth + w]. Half-width w is half-width w − 1 widened by one sample on
/// each side, so all of them cost `maxWidth` steps of two comparisons per pixel, in loops that vectorise.
func growingExtremum(_ padded: UnsafePointer<Float>, maxWidth: Int, count n: Int, isMax: Bool, widths: [Int],
                     into planes: [UnsafeMutablePointer<Float>]) {
    let centre = padded + maxWidth
    // Widening happens in the plane of the next wanted width; once a width is reached its plane is kept and
    // the widening goes on in a copy of it, in the following plane.
    var next = 0
    var acc = planes[0]
    acc.update(from: centre, count: n)
    for w in 0...maxWidth {
        if w > 0 {
            let left = centre - w, right = centre + w
            if isMax {
                for x in 0..<n { let a = left[x], b = right[x], c = acc[x]; let m = a > b ? a : b; acc[x] = m > c ? m : c }
            } else {
                for x in 0..<n { let a = left[x], b = right[x], c = acc[x]; let m = a < b ? a : b; acc[x] = m < c ? m : c }
            }
        }
        if widths[next] == w {
            next += 1
            if next == widths.count { return }
            planes[next].update(from: acc, count: n)
            acc = planes[next]
        }
    }
}
