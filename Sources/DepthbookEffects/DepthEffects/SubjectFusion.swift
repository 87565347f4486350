import DepthbookEngine

/// `photo.subject` on a photo with a learned person matte and no portrait matte of its own: the matte decides the
/// edge, depth decides which of its regions are the subject. A network mattes every person and pet it sees; depth
/// alone cannot tell a person from the chair at the same distance. So the matte's connected regions (cut at 0.5)
/// that lie mostly inside depth's subject region (`SubjectPlane.region`: the near side, around the face) are kept,
/// with the matte's own soft alpha, and the rest (someone further back, a poster) is dropped.
enum SubjectFusion {
    /// The share of a matte region that must lie on depth's near side to count as the subject. A third, not a
    /// half: depth's region is coarse and its cut may run through a seated person's lap.
    static let agreement = 1.0 / 3.0
    /// The least share of the frame the kept regions must cover to be a subject. On a photo of no one (the
    /// Android table) the network matted three chair-leg specks, 0.3 % of the frame, and Big Head scaled those.
    static let smallest = 0.01
    /// The least alpha that joins a pixel to a kept region's soft edge. A fixed fringe of three pixels (at 512 px)
    /// cut hair's wisps off: on the shared iPhone XS portrait the subject sat 0.112 off Apple's matte near its edge
    /// with it, 0.097 with this (the network's own matte: 0.096).
    static let faint: Float = 0.02

    /// The fused subject at the matte's resolution, nil when the photo has no person matte, or depth agrees with
    /// none of its regions (the effects then take the subject from depth alone). Found once per photo.
    static func fused(_ c: EffectContext) throws -> Node? {
        guard let matte = c.photo.personMatte, c.photo.matte(.portraitEffectsMatte) == nil else { return nil }
        let matteNode = try Node(PlaneSource(matte, id: "personMatte:\(c.photoID)"))
        let regionNode = try SubjectPlane.region(c)
        let key = NodeKey("personSubject agreement=\(agreement) faint=\(faint) smallest=\(smallest) unsure=\(PersonMatteTrust.mostUnsure)", inputs: [matteNode.key, regionNode.key])
        let kept = try c.statistics.kept(key) {
            let region = try c.native(regionNode)
            let samples = fuse(matte: matte, region: FloatPlane(width: region.width, height: region.height, channels: 1, samples: region.samples))
            // An empty buffer says "no agreement" to later calls without running the search again.
            return PixelBuffer(region: PixelRect(x: 0, y: 0, width: samples == nil ? 1 : matte.width, height: samples == nil ? 1 : matte.height),
                               channels: 1, samples: samples ?? [-1])
        }
        guard kept.width == matte.width, kept.height == matte.height else { return nil }
        return try Node(PlaneSource(FloatPlane(width: kept.width, height: kept.height, channels: 1, samples: kept.samples), id: key.description))
    }

    /// The matte kept over its regions that `region` (1 inside, any resolution, covering the same frame) agrees
    /// are the subject, and over their soft edge (above `faint`, joined to them); 0 elsewhere. Nil when the
    /// network is unsure of what it matted (`PersonMatteTrust`: the shelf's ornaments in fragments), no region is
    /// kept, or what is kept is under `smallest` of the frame.
    static func fuse(matte: FloatPlane, region: FloatPlane) -> [Float]? {
        let w = matte.width, h = matte.height
        guard w > 0, h > 0, region.width > 0, region.height > 0, PersonMatteTrust.holdsSomeone(matte) else { return nil }
        // 4-connected regions of the matte at 0.5; label 0 is outside every region.
        var label = [Int32](repeating: 0, count: w * h)
        var areas: [Int] = [0], agreeing: [Int] = [0]
        var stack: [Int] = []
        for start in 0..<(w * h) where label[start] == 0 && matte.samples[start] >= 0.5 {
            let id = Int32(areas.count)
            var area = 0, inside = 0
            label[start] = id
            stack.append(start)
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                area += 1
                let rx = min(region.width - 1, (2 * x + 1) * region.width / (2 * w))
                let ry = min(region.height - 1, (2 * y + 1) * region.height / (2 * h))
                if region.samples[ry * region.width + rx] > 0.5 { inside += 1 }
                func visit(_ n: Int) {
                    guard label[n] == 0, matte.samples[n] >= 0.5 else { return }
                    label[n] = id
                    stack.append(n)
                }
                if x > 0 { visit(i - 1) }
                if x + 1 < w { visit(i + 1) }
                if y > 0 { visit(i - w) }
                if y + 1 < h { visit(i + w) }
            }
            areas.append(area)
            agreeing.append(inside)
        }
        let keep = zip(areas, agreeing).map { $0 > 0 && Double($1) >= agreement * Double($0) }
        let keptArea = zip(keep, areas).filter(\.0).map(\.1).reduce(0, +)
        guard Double(keptArea) >= smallest * Double(w * h) else { return nil }
        // The kept regions' soft edge: every pixel the matte calls at all likely (above `faint`) that a path of
        // such pixels joins to a kept region, without crossing another region's own pixels. Hair's wisps fade
        // below 0.5 well beyond a fixed fringe and stay joined to the head; another person is not joined at all.
        var out = [Float](repeating: 0, count: w * h)
        stack.removeAll(keepingCapacity: true)
        for i in 0..<(w * h) where keep[Int(label[i])] && label[i] != 0 {
            out[i] = min(1, matte.samples[i])
            stack.append(i)
        }
        while let i = stack.popLast() {
            let x = i % w, y = i / w
            for dy in -1...1 where y + dy >= 0 && y + dy < h {
                for dx in -1...1 where x + dx >= 0 && x + dx < w {
                    let n = i + dy * w + dx
                    guard out[n] == 0, label[n] == 0, matte.samples[n] > faint else { continue }
                    out[n] = min(1, matte.samples[n])
                    stack.append(n)
                }
            }
        }
        return out
    }
}
