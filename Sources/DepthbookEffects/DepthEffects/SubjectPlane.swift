import DepthbookEngine

/// `photo.subject`: the subject mask from depth, a plane of its own whenever the photo has depth, and the
/// portrait matte's stand-in on photos without one. The near side of the photo's cut (`SubjectCut`), closed to
/// bridge the map's small gaps, reduced to the region around the face (`SubjectRegion`), and fitted to the
/// photo's own edges at the size rendered (`EdgeFit`).
enum SubjectPlane {
    /// The subject region at the depth map's resolution (1 inside, 0 outside), found once per photo.
    static func region(_ c: EffectContext) throws -> Node {
        guard let (plane, _, cut) = try SubjectCut.photoCut(c) else { throw EffectError.missingPlane("photo.subject") }
        var near = try Primitives.threshold(plane, cut)
        near = try Primitives.closing(near, radius: c.nativePixels(Double(c.photo.width) * 0.015, for: near))
        // The largest face seeds the region; the other faces at least half its size (people beside it, not a
        // poster or a passer-by far behind) join their own near parts to it.
        let faces = DepthSupport.faces(c).sorted { $0.width * $0.height > $1.width * $1.height }
        let centres = faces.filter { $0.width >= 0.5 * faces[0].width }.map { (x: $0.x + $0.width / 2, y: $0.y + $0.height / 2) }
        let seed = centres.first, others = Array(centres.dropFirst())
        let described = centres.map { "\($0.x),\($0.y)" }.joined(separator: ";")
        let key = NodeKey("subjectRegion seeds=\(described.isEmpty ? "none" : described)", inputs: [near.key])
        let region = try c.statistics.kept(key) {
            let closed = try c.native(near)
            return PixelBuffer(region: closed.region, channels: 1,
                               samples: SubjectRegion.select(closed.samples, width: closed.width, height: closed.height, seed: seed, others: others))
        }
        return try Node(PlaneSource(FloatPlane(width: region.width, height: region.height, channels: 1, samples: region.samples),
                                    id: key.description))
    }

    /// The subject mask at the image's size, its edges on the photo's: the learned person matte's regions that
    /// depth agrees are the subject (`SubjectFusion`) when there are any, else the region from depth.
    /// Made from the photo alone and read by every frame of a subject effect: its fit is pinned in the cache.
    static func mask(_ c: EffectContext) throws -> Node {
        if let fused = try SubjectFusion.fused(c) { return try EdgeFit.fittedLearned(fused, c, photoOnly: true) }
        return try EdgeFit.fitted(try region(c), c, photoOnly: true)
    }

    /// What the page says once when a portrait matte was stood in for, by what stood in.
    static func note(_ c: EffectContext) -> String {
        (try? SubjectFusion.fused(c)) != nil ? learnedNote : note
    }

    /// For the effects made for a person or pet (Big Head, Marching): said when the network looked and found no
    /// one, nor a face, so what they scale or repeat is only the near region depth picks (the Android table's
    /// chairs, the shelf's egg).
    static func noOneNotes(_ c: EffectContext, effect: String) -> Set<String> {
        guard c.photo.matte(.portraitEffectsMatte) == nil, c.photo.personMatte != nil, c.photo.faces.isEmpty,
              (try? SubjectFusion.fused(c)) == nil else { return [] }
        return ["\(effect) is made for a person or pet: none was found in this photo, so it works on the near region its depth picks (photo.subject)."]
    }

    static let learnedNote = "This photo has no portrait matte: the subject mask is the learned person matte (photo.personMatte) where its depth agrees the person is in front."

    static let note = "This photo has no portrait matte: the subject mask comes from its depth (photo.subject: the region around the face, or the large near region nearest the centre, fitted to the photo's edges)."
}
