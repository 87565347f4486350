import DepthbookEngine

/// Decides which way the grey of a depth map the user brings runs (brighter nearer, as disparity, or brighter
/// farther, as depth) from the map and its image, when nobody said.
///
/// Both conventions are common: depthy's maps and Google's stored GDepth images are brighter where things are
/// farther; Apple's portrait disparity is brighter where they are nearer. Three cues, each a rank correlation
/// in −1...1 that is positive when brighter is nearer, are computed on a grid of about 48 rows:
/// - ground: the map against the row. In most photos the bottom of the frame is nearer than the top (the
///   ground runs away from the camera; sky, walls and far things sit high).
/// - focus: the map against the image's fine detail (Laplacian energy). The sharpest part of a photo is
///   usually its subject, which is near, and lens blur or portrait mode blur the far parts. It counts 0.4,
///   since a well-lit far end can be the sharpest thing in a scene (depthy's tunnel and hut).
/// - faces, when the photo has some: where the faces are, against the rest of the map. A face is nearer
///   than most of its frame.
///
/// Each cue changes sign when the grey is turned over, so a map and its inverse read as the same disparity.
/// What the cues measure on the shared photos is in `DepthMapPolarityTests`.
enum DepthMapPolarityDetector {
    /// The cues and what they add up to.
    struct Decision: Sendable, Equatable {
        var ground: Double
        var focus: Double
        /// nil when the photo has no face (or none falls on the map).
        var faces: Double?

        static let focusWeight = 0.4

        /// Positive when brighter is nearer.
        var score: Double { ground + Self.focusWeight * focus + (faces ?? 0) }

        /// A tie (a flat map) is read the common way, brighter nearer.
        var polarity: DepthMapPolarity { score >= 0 ? .brighterIsNearer : .brighterIsFarther }
    }

    /// Rows of the grid the cues are measured on.
    static let gridRows = 48
    /// Image pixels per grid cell side for the focus cue, at most.
    static let detailPerCell = 8

    /// The cues for `map` (its grey as stored, 0...1, holes NaN) beside `image` (the same aspect ratio).
    static func decide(map: FloatPlane, image: RGBImage8, faces: [FaceRegion]) -> Decision {
        let rows = max(1, min(gridRows, map.height))
        let columns = max(1, min(map.width, Int((Double(rows) * Double(map.width) / Double(map.height)).rounded())))
        let cells = cellMeans(map, rows: rows, columns: columns)
        var valid: [Int] = []
        for i in cells.indices where !cells[i].isNaN { valid.append(i) }
        guard valid.count >= 2 else { return Decision(ground: 0, focus: 0, faces: nil) }
        let values = valid.map { Double(cells[$0]) }

        let ground = rankCorrelation(valid.map { Double($0 / columns) }, values)
        var focus = 0.0
        if let detail = detail(image, rows: rows, columns: columns) {
            focus = rankCorrelation(valid.map { Double(detail[$0]) }, values)
        }
        let faceCue = faceCue(faces, image: image, cells: valid, values: values, rows: rows, columns: columns)
        return Decision(ground: ground, focus: focus, faces: faceCue)
    }

    /// Mean of the valid samples in each cell (NaN where a cell has none), row by row.
    static func cellMeans(_ map: FloatPlane, rows: Int, columns: Int) -> [Float] {
        var sums = [Double](repeating: 0, count: rows * columns)
        var counts = [Int](repeating: 0, count: rows * columns)
        let columnOf = (0..<map.width).map { $0 * columns / map.width }
        for y in 0..<map.height {
            let r = y * rows / map.height
            let base = y * map.width * map.channels
            for x in 0..<map.width {
                let v = map.samples[base + x * map.channels]
                guard !v.isNaN else { continue }
                sums[r * columns + columnOf[x]] += Double(v)
                counts[r * columns + columnOf[x]] += 1
            }
        }
        return zip(sums, counts).map { $1 > 0 ? Float($0 / Double($1)) : .nan }
    }

    /// Fine detail per cell: the mean absolute Laplacian of the image's luma, box-reduced to a few pixels
    /// per cell (at most `detailPerCell`) so that noise and JPEG blocks weigh little. nil for an image too
    /// small to have two pixels per cell.
    static func detail(_ image: RGBImage8, rows: Int, columns: Int) -> [Float]? {
        let k = min(detailPerCell, image.width / columns, image.height / rows)
        guard k >= 2, image.channels >= 3 else { return nil }
        let lw = columns * k, lh = rows * k
        var luma = [Float](repeating: 0, count: lw * lh)
        var counts = [Float](repeating: 0, count: lw * lh)
        let binOf = (0..<image.width).map { $0 * lw / image.width }
        image.samples.withUnsafeBufferPointer { px in
            for y in 0..<image.height {
                let row = (y * lh / image.height) * lw
                var p = y * image.width * image.channels
                for x in 0..<image.width {
                    let v = 0.299 * Float(px[p]) + 0.587 * Float(px[p + 1]) + 0.114 * Float(px[p + 2])
                    luma[row + binOf[x]] += v
                    counts[row + binOf[x]] += 1
                    p += image.channels
                }
            }
        }
        for i in luma.indices where counts[i] > 0 { luma[i] /= counts[i] }
        var energy = [Float](repeating: 0, count: rows * columns)
        var samples = [Float](repeating: 0, count: rows * columns)
        for y in 1..<(lh - 1) {
            for x in 1..<(lw - 1) {
                let i = y * lw + x
                let laplacian = 4 * luma[i] - luma[i - 1] - luma[i + 1] - luma[i - lw] - luma[i + lw]
                let cell = (y / k) * columns + x / k
                energy[cell] += abs(laplacian)
                samples[cell] += 1
            }
        }
        return zip(energy, samples).map { $1 > 0 ? $0 / $1 : 0 }
    }

    /// 2 × (mean percentile of the cells under faces − ½): +1 when the faces hold the brightest cells.
    static func faceCue(_ faces: [FaceRegion], image: RGBImage8, cells: [Int], values: [Double], rows: Int, columns: Int) -> Double? {
        let boxes = faces.filter { $0.type.lowercased() == "face" }
        guard !boxes.isEmpty, cells.count >= 2 else { return nil }
        let ranks = self.ranks(values)
        let top = Double(cells.count - 1)
        var total = 0.0, count = 0
        for (k, cell) in cells.enumerated() {
            // The cell's centre in image pixels.
            let x = (Double(cell % columns) + 0.5) * Double(image.width) / Double(columns)
            let y = (Double(cell / columns) + 0.5) * Double(image.height) / Double(rows)
            guard boxes.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }) else { continue }
            total += ranks[k] / top
            count += 1
        }
        guard count > 0 else { return nil }
        return 2 * (total / Double(count) - 0.5)
    }

    /// Spearman's rank correlation (Pearson's on ranks, ties sharing their mean rank); 0 when either side is flat.
    static func rankCorrelation(_ a: [Double], _ b: [Double]) -> Double {
        guard a.count == b.count, a.count >= 2 else { return 0 }
        let ra = ranks(a), rb = ranks(b)
        let mean = Double(a.count - 1) / 2
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in ra.indices {
            let da = ra[i] - mean, db = rb[i] - mean
            sab += da * db
            saa += da * da
            sbb += db * db
        }
        guard saa > 0, sbb > 0 else { return 0 }
        return sab / (saa * sbb).squareRoot()
    }

    /// Ranks from 0, equal values sharing the mean of their ranks.
    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var out = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let shared = Double(start + end) / 2
            for k in start...end { out[order[k]] = shared }
            start = end + 1
        }
        return out
    }
}
