import DepthbookEngine

/// The subject as one region of a near-mask: not every pixel nearer than the cut (a bed, a table edge, a
/// shoulder of someone behind), but the connected part around the face, or without a face the large part
/// nearest the frame's centre, with its holes filled. Pure array work at the depth map's resolution.
enum SubjectRegion {
    /// A part smaller than this share of the frame is never taken for the subject when a larger one exists.
    static let largeShare = 0.01

    /// 1 on the chosen region of `near` (≥ 0.5 is near; `width` × `height`), holes inside it filled, else 0.
    /// `seed` (normalised image coordinates) is a point on the subject, the face's centre; `reach` how far
    /// (normalised to the width) from it the region may start, for a seed that fell just off the mask.
    /// `others` are more people's points (the other faces): a part one of them lies on is joined to the region, so
    /// two people side by side at the same distance are both the subject. They take no reach: a face beside the
    /// subject but behind the cut (someone further back) must not pull in whatever near part lies next to it.
    static func select(_ near: [Float], width w: Int, height h: Int, seed: (x: Double, y: Double)?,
                       others: [(x: Double, y: Double)] = [], reach: Double = 0.05) -> [Float] {
        guard w > 0, h > 0, near.count == w * h else { return near }
        let (labels, sizes) = ConnectedComponents.labelled(near.map { $0 >= 0.5 }, width: w, height: h)
        guard !sizes.isEmpty else { return [Float](repeating: 0, count: w * h) }
        var chosen = -1
        if let seed {
            chosen = nearestLabel(labels, width: w, height: h, to: seed, within: reach * Double(w), allowed: { _ in true })
        }
        var joined = Set<Int>()
        if chosen >= 0 {
            for point in others {
                // Within a pixel's half-diagonal of a pixel's centre: the point lies on that pixel.
                let label = nearestLabel(labels, width: w, height: h, to: point, within: 0.75, allowed: { _ in true })
                if label >= 0 { joined.insert(label) }
            }
        }
        if chosen < 0 {
            let large = Double(w * h) * largeShare
            let biggest = sizes.indices.max { sizes[$0] < sizes[$1] }!
            chosen = nearestLabel(labels, width: w, height: h, to: (0.5, 0.5), within: Double(w + h),
                                  allowed: { Double(sizes[$0]) >= large || $0 == biggest })
        }
        var region = labels.map { $0 == chosen || joined.contains(Int($0)) }
        fillHoles(&region, width: w, height: h)
        return region.map { $0 ? 1 : 0 }
    }

    /// The allowed label with a pixel nearest `point` (normalised), within `radius` pixels; -1 when none.
    static func nearestLabel(_ labels: [Int32], width w: Int, height h: Int, to point: (x: Double, y: Double),
                             within radius: Double, allowed: (Int) -> Bool) -> Int {
        let px = point.x * Double(w) - 0.5, py = point.y * Double(h) - 0.5
        var best = -1, bestDistance = radius * radius
        for y in 0..<h {
            let dy = Double(y) - py
            if dy * dy > bestDistance { continue }
            for x in 0..<w {
                let label = Int(labels[y * w + x])
                guard label >= 0 else { continue }
                let dx = Double(x) - px, d = dx * dx + dy * dy
                if d <= bestDistance && (d < bestDistance || best < 0) && allowed(label) {
                    best = label
                    bestDistance = d
                }
            }
        }
        return best
    }

    /// Sets every pixel outside `region` that the frame's border cannot reach (4-connected) through pixels
    /// outside it: the holes a closing left (an open mouth, the gap under an arm).
    static func fillHoles(_ region: inout [Bool], width w: Int, height h: Int) {
        let outside = BorderReach.reached(outside: region, width: w, height: h)
        for i in 0..<(w * h) where !outside[i] { region[i] = true }
    }
}
