/// What the dolly zoom does with what the photo never saw: holes filled from the background around them, and
/// the largest clean rectangle for the crop.
enum DollyFill {

    /// The image with its depth as one more channel, so each drawn pixel carries the depth of what it shows.
    static func withDepth(_ image: PixelBuffer, _ depth: PixelBuffer) -> PixelBuffer {
        let ch = image.channels, n = image.region.pixelCount
        var samples = [Float](repeating: 0, count: n * (ch + 1))
        for i in 0..<n {
            for k in 0..<ch { samples[i * (ch + 1) + k] = image.samples[i * ch + k] }
            samples[i * (ch + 1) + ch] = depth.samples[i]
        }
        return PixelBuffer(region: image.region, channels: ch + 1, samples: samples)
    }

    /// The uncovered pixels the frame's border reaches through uncovered pixels (4-connected): the view past
    /// the photo's edges, as opposed to gaps inside it.
    static func borderConnected(_ covered: [Bool], size: PixelSize) -> [Bool] {
        BorderReach.reached(outside: covered, width: size.width, height: size.height)
    }

    /// The drawn colours (the last channel of `drawn` is depth) with every uncovered pixel filled by push-pull
    /// from the covered ones: gaps the subject uncovered from what lies farthest around them (the background
    /// behind it), the view past the photo's edges (`pastEdges`) from whatever is nearest, as the photo would
    /// continue there (a shoulder the frame cuts, when the camera pulls back). `keepBlack` pixels stay black.
    /// Gaps inside the frame that `behind` (the background plate, drawn by the same camera) covers show it; with
    /// `textured`, the gaps the plate does not reach are then given the far background's own texture
    /// (`PatchInpaint`, started from the push-pull fill): a flat smear there read as a hole in the picture.
    static func filled(_ drawn: MeshRasterizer.Result, channels ch: Int, size: PixelSize, pastEdges: [Bool]?, keepBlack: [Bool]?,
                       behind: MeshRasterizer.Result? = nil, textured: Bool = false,
                       checkCancelled: () throws -> Void = {}) throws -> PixelBuffer {
        let n = size.width * size.height, sc = ch + 1
        let source = drawn.buffer.samples, covered = drawn.covered
        var farthest: Float = 0
        for i in 0..<n where covered[i] { farthest = max(farthest, source[i * sc + ch]) }
        let w = size.width
        var colors = [Float](repeating: 0, count: n * ch), weights = [Float](repeating: 0, count: n)
        if farthest > 0 {
            for i in 0..<n where covered[i] {
                // (depth / farthest)⁴: what the subject uncovered is continued from the background behind it, not
                // smeared from the subject in front.
                let r = min(1, max(0, source[i * sc + ch] / farthest)), r2 = r * r
                let weight = r2 * r2
                weights[i] = weight
                for k in 0..<ch { colors[i * ch + k] = source[i * sc + k] * weight }
            }
        }
        let fromBehind = PushPull.fill(colors: colors, weights: weights, channels: ch, width: size.width, height: size.height)
        let (tear, tearColour) = tears(drawn, channels: ch, pastEdges: pastEdges, size: size)
        var fromNearest: [Float]? = nil
        if let pastEdges, pastEdges.contains(true) {
            for i in 0..<n where covered[i] {
                weights[i] = 1
                for k in 0..<ch { colors[i * ch + k] = source[i * sc + k] }
            }
            fromNearest = PushPull.fill(colors: colors, weights: weights, channels: ch, width: size.width, height: size.height)
        }
        let smooth = PixelBuffer(region: PixelRect(size), channels: ch) { out in
            for i in 0..<n {
                if !covered[i], pastEdges?[i] != true, !tear[i], let behind, behind.covered[i] {
                    for k in 0..<ch { out[i * ch + k] = behind.buffer.samples[i * ch + k] }
                    continue
                }
                if tear[i], let colour = tearColour(i) {
                    for k in 0..<ch { out[i * ch + k] = colour[k] }
                    continue
                }
                let fill = fromNearest != nil && pastEdges?[i] == true ? fromNearest! : fromBehind
                for k in 0..<ch {
                    out[i * ch + k] = covered[i] ? source[i * sc + k] : (keepBlack?[i] == true ? 0 : fill[i * ch + k])
                }
            }
        }
        guard textured, farthest > 0 else { return smooth }
        // The gaps left: inside the frame, neither drawn nor on the plate.
        var gap = [Bool](repeating: false, count: n), onPlate = [Bool](repeating: false, count: n)
        for i in 0..<n {
            onPlate[i] = !covered[i] && pastEdges?[i] != true && !tear[i] && behind?.covered[i] == true
            gap[i] = !covered[i] && pastEdges?[i] != true && !tear[i] && !onPlate[i] && keepBlack?[i] != true
        }
        // Each gap's texture comes from what is drawn near it (within `sourceReach`) about as far as its border's
        // median depth or farther (the side behind it, not the subject in front, on maps whose whole range is a
        // few per cent) and from the plate. The border's depths: the subject in front on one side, what lies
        // behind on the others. (One threshold for every gap took the table's gaps under its chairs from the trees
        // far behind: green leaves between the chair legs. The upper quartile took the hut's gaps from its lit
        // window only: flat yellow.)
        let reach = max(2, Int(sourceReach * Double(w)))
        let (labels, sizes) = ConnectedComponents.labelled(gap, width: w, height: size.height)
        var borders = [[Float]](repeating: [], count: sizes.count)
        for i in 0..<n where covered[i] {
            forEachNeighbour(of: i, width: w, count: n) { j in if gap[j] { borders[Int(labels[j])].append(source[i * sc + ch]) } }
        }
        let behindDepths = borders.map { depths -> Float in depths.isEmpty ? 0 : depths.sorted()[depths.count / 2] * farSource }
        let threshold = SlidingMax.square((0..<n).map { gap[$0] ? behindDepths[Int(labels[$0])] : 0 }, width: w, height: size.height, radius: reach)
        let from = (0..<n).map { onPlate[$0] || (covered[$0] && threshold[$0] > 0 && source[$0 * sc + ch] >= threshold[$0]) }
        guard from.contains(true) else { return smooth }
        // Two passes a level, one at the finest, half the plate's: made on every frame of a drag (with four, the
        // fill added about 200 ms to a 736-px frame of the selfie pulled back).
        return try PatchInpaint.filled(smooth, hole: gap, source: from, iterations: 2, checkCancelled: checkCancelled)
    }

    /// The uncovered pixels in gaps too small to be something the subject hid (at most `largestTear` of the
    /// frame), each with its colour: the mean of the drawn pixels along its border that lie at its border's
    /// median depth or farther (the surface behind the tear, not what stands in front). A noisy depth map tears
    /// a wall's mesh open in flecks; filled like the larger gaps, from what lies farthest in the whole view,
    /// they showed the sunlit courtyard as white shards on the tunnel's walls.
    static func tears(_ drawn: MeshRasterizer.Result, channels ch: Int, pastEdges: [Bool]?, size: PixelSize) -> (mask: [Bool], colour: (Int) -> [Float]?) {
        let w = size.width, n = w * size.height, sc = ch + 1
        let covered = drawn.covered, source = drawn.buffer.samples
        let open = (0..<n).map { !covered[$0] && pastEdges?[$0] != true }
        guard open.contains(true) else { return (open, { _ in nil }) }
        let (labels, sizes) = ConnectedComponents.labelled(open, width: w, height: size.height)
        let largest = max(4, Int(largestTear * Double(n)))
        let mask = labels.map { $0 >= 0 && sizes[Int($0)] <= largest }
        // Each tear's border: (depth, pixel) of the drawn pixels next to it.
        var border: [Int32: [(depth: Float, pixel: Int)]] = [:]
        for i in 0..<n where covered[i] {
            forEachNeighbour(of: i, width: w, count: n) { j in if mask[j] { border[labels[j], default: []].append((source[i * sc + ch], i)) } }
        }
        var colourOf = [[Float]?](repeating: nil, count: sizes.count)
        for (label, pixels) in border {
            let median = pixels.map(\.depth).sorted()[pixels.count / 2]
            let behind = pixels.filter { $0.depth >= median }
            var mean = [Float](repeating: 0, count: ch)
            for p in behind { for k in 0..<ch { mean[k] += source[p.pixel * sc + k] / Float(behind.count) } }
            colourOf[Int(label)] = mean
        }
        return (mask, { mask[$0] ? colourOf[Int(labels[$0])] : nil })
    }

    /// The 4-neighbours of pixel `i` in a frame `w` wide of `n` pixels (no array made: this runs for every
    /// drawn pixel of every frame of a drag).
    @inline(__always)
    static func forEachNeighbour(of i: Int, width w: Int, count n: Int, _ body: (Int) -> Void) {
        let x = i % w
        if x > 0 { body(i - 1) }
        if x + 1 < w { body(i + 1) }
        if i >= w { body(i - w) }
        if i + w < n { body(i + w) }
    }

    /// About 170 pixels of a 720 × 960 frame.
    static let largestTear = 1.0 / 4_000

    /// How far from a gap (a share of the frame's width) what lends it its colour and texture may lie.
    static let sourceReach = 1.0 / 8

    /// How near a drawn pixel may be, as a share of the median depth along the gaps' borders, and still lend its
    /// texture to them.
    static let farSource: Float = 0.97

    /// Drops the plate's cells that draw what the photo's own mesh draws (no corner's depth replaced, nor a
    /// neighbouring cell's): only the band the plate replaced can show through a gap, and drawing the rest
    /// doubled the zoom's drawing time. Both meshes are on the same grid.
    static func keepReplaced(_ plate: inout WarpMesh, comparedWith photo: WarpMesh) {
        let c = plate.columns, cells = (plate.columns - 1) * (plate.rows - 1)
        guard plate.columns == photo.columns, plate.rows == photo.rows, cells > 0 else { return }
        var replaced = [Bool](repeating: false, count: cells)
        for j in 0..<(plate.rows - 1) {
            for i in 0..<(c - 1) {
                let k = j * c + i
                // Within 1 %: a plate made at another size and resampled differs a little everywhere.
                replaced[j * (c - 1) + i] = [k, k + 1, k + c, k + c + 1].contains { abs(plate.z[$0] - photo.z[$0]) > 0.01 * abs(photo.z[$0]) }
            }
        }
        for j in 0..<(plate.rows - 1) {
            for i in 0..<(c - 1) where !plate.droppedCells[j * (c - 1) + i] {
                var near = false
                for jj in max(0, j - 1)...min(plate.rows - 2, j + 1) {
                    for ii in max(0, i - 1)...min(c - 2, i + 1) where replaced[jj * (c - 1) + ii] { near = true }
                }
                if !near { plate.droppedCells[j * (c - 1) + i] = true }
            }
        }
    }

    /// The largest rectangle of the frame's shape holding no `outside` pixel, centred on `centre` as far as the
    /// frame allows (found by bisection on its size over a summed-area table); the whole frame when nothing is
    /// outside, a tenth of it at the least.
    static func cleanRect(outside: [Bool], size: PixelSize, centre: (x: Double, y: Double)) -> (x: Double, y: Double, width: Double, height: Double) {
        let w = size.width, h = size.height
        var table = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row: Int32 = 0
            for x in 0..<w {
                row += outside[y * w + x] ? 1 : 0
                table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
            }
        }
        func rect(_ k: Double) -> (x: Double, y: Double, width: Double, height: Double) {
            let rw = Double(w) * k, rh = Double(h) * k
            return (min(max(centre.x - rw / 2, 0), Double(w) - rw), min(max(centre.y - rh / 2, 0), Double(h) - rh), rw, rh)
        }
        func clean(_ k: Double) -> Bool {
            let r = rect(k)
            let x0 = Int(r.x.rounded(.down)), y0 = Int(r.y.rounded(.down))
            let x1 = min(w, Int((r.x + r.width).rounded(.up))), y1 = min(h, Int((r.y + r.height).rounded(.up)))
            let count = table[y1 * (w + 1) + x1] - table[y0 * (w + 1) + x1] - table[y1 * (w + 1) + x0] + table[y0 * (w + 1) + x0]
            return count == 0
        }
        if clean(1) { return rect(1) }
        var low = 0.1, high = 1.0
        for _ in 0..<24 {
            let mid = (low + high) / 2
            if clean(mid) { low = mid } else { high = mid }
        }
        return rect(low)
    }

    /// `rect` of `buffer` resampled bilinearly to fill `size`.
    static func scaled(_ buffer: PixelBuffer, from rect: (x: Double, y: Double, width: Double, height: Double), to size: PixelSize) -> PixelBuffer {
        if rect.x == 0 && rect.y == 0 && rect.width == Double(size.width) && rect.height == Double(size.height) { return buffer }
        let ch = buffer.channels
        let sx = rect.width / Double(size.width), sy = rect.height / Double(size.height)
        return PixelBuffer(region: PixelRect(size), channels: ch) { out in
            for y in 0..<size.height {
                let fy = Float(rect.y + (Double(y) + 0.5) * sy)
                for x in 0..<size.width {
                    buffer.sampleBilinear(Float(rect.x + (Double(x) + 0.5) * sx), fy, into: out.baseAddress! + (y * size.width + x) * ch)
                }
            }
        }
    }
}
