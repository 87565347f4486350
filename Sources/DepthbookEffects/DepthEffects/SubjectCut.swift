import DepthbookEngine

/// Where a depth map divides its subject from the background, found from the photo itself: the threshold
/// (Otsu's) that best splits the valid disparities into two classes, which lies in the valley between the
/// subject's mode and the background's. When a face is known the cut is kept clearly behind the face's own
/// disparity, so a cut never runs across the face.
enum SubjectCut {
    /// Bins of the histogram the split is searched on: fine enough for the valley, cheap on any map.
    static let bins = 256

    /// The cut as a disparity (higher is nearer), from samples sorted ascending with NaN removed; nil when
    /// there are none. `face` is the disparity at the face, when one is known.
    static func disparity(sortedValid values: [Float], face: Double? = nil) -> Double? {
        guard let lo = values.first, let hi = values.last else { return nil }
        guard lo < hi else { return Double(lo) }
        var cut = otsu(values, lo: Double(lo), hi: Double(hi))
        if let face, face.isFinite, face > Double(lo), cut > face * behindFace {
            // The split fell inside the face (a near hand or shoulder formed the nearer class): split again
            // among what lies behind the face.
            let behind = values.prefix { Double($0) < face * behindFace }
            if let top = behind.last, Double(top) > Double(lo) {
                cut = otsu(behind, lo: Double(lo), hi: Double(top))
            } else {
                cut = face * behindFace
            }
        }
        return cut
    }

    /// A face's disparity scaled by this is clearly behind it (ears, hair and neck are kept).
    static let behindFace = 0.8

    /// The share of samples at or above `cut`, 0...100: the percentile a threshold cell shows for it.
    static func keptPercent(sortedValid values: [Float], cut: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        return Double(values.count - firstIndex(sortedValid: values, atOrAbove: cut)) / Double(values.count) * 100
    }

    /// The index of the first sample at or above `cut` (the count when there is none).
    static func firstIndex(sortedValid values: [Float], atOrAbove cut: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if Double(values[mid]) < cut { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Otsu's threshold over equal bins of lo...hi: the bin edge maximising the between-class variance.
    static func otsu<C: Collection>(_ values: C, lo: Double, hi: Double) -> Double where C.Element == Float {
        let span = hi - lo
        guard span > 0 else { return lo }
        var counts = [Double](repeating: 0, count: bins)
        for v in values {
            counts[min(bins - 1, max(0, Int((Double(v) - lo) / span * Double(bins))))] += 1
        }
        let width = span / Double(bins)
        let total = counts.reduce(0, +)
        var totalMoment = 0.0
        for (i, n) in counts.enumerated() { totalMoment += n * (lo + (Double(i) + 0.5) * width) }
        var below = 0.0, belowMoment = 0.0, best = -1.0, bestEdge = lo + span / 2
        for i in 0..<(bins - 1) {
            below += counts[i]
            belowMoment += counts[i] * (lo + (Double(i) + 0.5) * width)
            let above = total - below
            guard below > 0, above > 0 else { continue }
            let difference = belowMoment / below - (totalMoment - belowMoment) / above
            let variance = below * above * difference * difference
            if variance > best {
                best = variance
                bestEdge = lo + Double(i + 1) * width
            }
        }
        return bestEdge
    }
}

extension SubjectCut {
    /// The disparity at the photo's first face (the median around its centre), nil without a face or depth.
    static func faceDisparity(_ c: EffectContext) throws -> Double? {
        guard let face = DepthSupport.faces(c).first, c.photo.depth != nil else { return nil }
        let disparity = try c.native(try Primitives.photo(c, .disparity))
        return DepthSupport.median(disparity, at: (face.x + face.width / 2, face.y + face.height / 2), radius: face.width / 4)
    }

    /// The photo's disparity (node and native pixels) and its cut; nil without depth or valid samples.
    static func photoCut(_ c: EffectContext) throws -> (plane: Node, buffer: PixelBuffer, cut: Double)? {
        guard c.photo.depth != nil else { return nil }
        let plane = try Primitives.photo(c, .disparity)
        let buffer = try c.native(plane)
        guard let cut = try cut(c, plane: plane, sorted: c.statistics.sortedValid(plane.key, buffer)) else { return nil }
        return (plane, buffer, cut)
    }

    /// The cut of `plane` (whose valid samples, ascending, are `sorted`) behind the photo's face, found once per
    /// plane and face: every render of a threshold left to the photo asks for it.
    static func cut(_ c: EffectContext, plane: Node, sorted: [Float]) throws -> Double? {
        let face = try faceDisparity(c)
        return c.statistics.cut(plane.key, face: face) { disparity(sortedValid: sorted, face: face) }
    }

    /// The subject's disparity: the face's when one is known, else the median of the near class (the samples at
    /// or above the cut). Nil without depth.
    static func subjectDisparity(_ c: EffectContext) throws -> Double? {
        if let face = try faceDisparity(c) { return face }
        guard let (plane, buffer, cut) = try photoCut(c) else { return nil }
        let sorted = c.statistics.sortedValid(plane.key, buffer)
        let first = firstIndex(sortedValid: sorted, atOrAbove: cut)
        guard first < sorted.count else { return nil }
        return Double(sorted[first + (sorted.count - first) / 2])
    }

    /// A subject mask from depth alone, for photos without a portrait matte: everything nearer than the cut,
    /// closed (1.5 % of the width, bridging the map's small gaps) and feathered, at the depth map's size.
    static func subjectMask(_ c: EffectContext) throws -> Node {
        guard let (plane, _, cut) = try photoCut(c) else { throw EffectError.missingPlane("photo.portraitEffectsMatte") }
        let width = Double(c.photo.width)
        var mask = try Primitives.threshold(plane, cut, keepBelow: false)
        mask = try Primitives.closing(mask, radius: c.nativePixels(width * 0.015, for: mask))
        return try Primitives.feather(mask, sigma: c.nativePixels(width * 0.004, for: mask))
    }

    /// Where a tap or a focus point should land when the user has not chosen one: the first face's centre, else
    /// the middle of the near class (the point of it nearest to its centroid, so it never falls in a gap).
    static func subjectPoint(_ c: EffectContext) throws -> (x: Double, y: Double)? {
        if let face = DepthSupport.faces(c).first { return (face.x + face.width / 2, face.y + face.height / 2) }
        guard let (_, buffer, cut) = try photoCut(c) else { return nil }
        let w = buffer.width, h = buffer.height
        var sumX = 0.0, sumY = 0.0, count = 0.0
        for y in 0..<h {
            for x in 0..<w where Double(buffer.samples[y * w + x]) >= cut {
                sumX += Double(x)
                sumY += Double(y)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        let cx = sumX / count, cy = sumY / count
        var best = (x: cx, y: cy), bestDistance = Double.infinity
        for y in 0..<h {
            for x in 0..<w where Double(buffer.samples[y * w + x]) >= cut {
                let d = (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)
                if d < bestDistance { bestDistance = d; best = (Double(x), Double(y)) }
            }
        }
        // Three decimals, as the page writes picked points.
        return (((best.x + 0.5) / Double(w) * 1000).rounded() / 1000, ((best.y + 0.5) / Double(h) * 1000).rounded() / 1000)
    }

    /// What the page says once when a portrait matte was stood in for.
    static let note = "This photo has no portrait matte: the subject mask comes from its depth (everything nearer than the valley between subject and background, closed and feathered)."
}
