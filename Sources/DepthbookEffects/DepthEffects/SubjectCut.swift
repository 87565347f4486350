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
        return valleyAbove(values, cut: cut, face: face) ?? cut
    }

    /// Otsu splits the background from everything nearer. When something stands between the two (a chair's
    /// back, a headrest, a bed), it falls on the near side with the subject, and the cut runs through it. The
    /// near side is searched for a clear valley: a bin (of 64, lightly smoothed) under a quarter of the smaller
    /// of the peaks either side, with at least half of the near samples above it (the subject) and at least
    /// 2 % below (a class of its own, not stray samples), and the face, when known, above it. Nil when there
    /// is none.
    static func valleyAbove(_ values: [Float], cut: Double, face: Double?) -> Double? {
        let start = firstIndex(sortedValid: values, atOrAbove: cut)
        guard let top = values.last, Double(top) > cut, values.count - start > 64 else { return nil }
        let near = values[start...]
        let count = 64, span = Double(top) - cut
        var raw = [Double](repeating: 0, count: count)
        for v in near { raw[min(count - 1, Int((Double(v) - cut) / span * Double(count)))] += 1 }
        var h = [Double](repeating: 0, count: count)
        for i in 0..<count {
            let sum: Double = raw[max(0, i - 1)] + 2 * raw[i] + raw[min(count - 1, i + 1)]
            h[i] = sum / 4
        }
        let total = Double(near.count)
        var best: (ratio: Double, bin: Int)?
        var below = raw[0]
        for i in 1..<(count - 1) {
            defer { below += raw[i] }
            let left = h[..<i].max() ?? 0, right = h[(i + 1)...].max() ?? 0
            guard min(left, right) > 0, below >= 0.02 * total, total - below - raw[i] >= 0.5 * total else { continue }
            let ratio = h[i] / min(left, right)
            if ratio < 0.25 && ratio < (best?.ratio ?? .infinity) { best = (ratio, i) }
        }
        guard let best else { return nil }
        let valley = cut + (Double(best.bin) + 0.5) / Double(count) * span
        if let face, face.isFinite, face < valley { return nil }
        return valley
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

    /// The far side of the subject: the 5th percentile of the disparity over `photo.subject`'s region, so
    /// the whole subject (a person's shoulders, a statue's body) lies at or above it. Nil without a subject.
    static func subjectFarSide(_ c: EffectContext) throws -> Double? {
        guard let (plane, buffer, _) = try photoCut(c) else { return nil }
        let regionNode = try SubjectPlane.region(c)
        let region = try c.native(regionNode)
        guard region.width == buffer.width, region.height == buffer.height else { return nil }
        let key = NodeKey("subjectFarSide", inputs: [plane.key, regionNode.key])
        let kept = c.statistics.kept(key) {
            let inside = zip(buffer.samples, region.samples).compactMap { $1 > 0.5 && !$0.isNaN ? $0 : nil }.sorted()
            let value = inside.isEmpty ? Float.nan : inside[inside.count / 20]
            return PixelBuffer(region: PixelRect(x: 0, y: 0, width: 1, height: 1), channels: 1, samples: [value])
        }
        let far = kept.samples[0]
        return far.isNaN ? nil : Double(far)
    }

    /// Where a tap or a focus point should land when the user has not chosen one: the first face's centre, else
    /// the middle of the learned subject (`SubjectFusion`) when there is one, else of the near class (the point of
    /// it nearest to its centroid, so it never falls in a gap).
    static func subjectPoint(_ c: EffectContext) throws -> (x: Double, y: Double)? {
        if let face = DepthSupport.faces(c).first { return (face.x + face.width / 2, face.y + face.height / 2) }
        if let fused = try SubjectFusion.fused(c) { return middle(of: try c.native(fused), cut: 0.5) }
        guard let (_, buffer, cut) = try photoCut(c) else { return nil }
        return middle(of: buffer, cut: cut)
    }

    /// The point of `buffer`'s samples at or above `cut` nearest to their centroid, normalised; nil when none is.
    static func middle(of buffer: PixelBuffer, cut: Double) -> (x: Double, y: Double)? {
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
}
