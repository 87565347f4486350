/// Whether a learned person matte holds someone the network is sure of. MODNet mattes a person or pet almost
/// everywhere at 0 or 1, soft only along the edge and in hair; on a photo of objects it leaves blotches and
/// fragments at half strength (docs/person-matte.md), and Big Head then scaled shards of a shelf's ornaments.
/// Measured on the shared photos' mattes at the network's resolution (`PersonMatteTrustOnPhotosTests`): on the
/// people, the pug and the dahlias 3–10 % of the likely pixels (above `likely`) were unsure (below `sure`); on the
/// avocados, the shelf, the hyacinths and the Android table 24–67 %.
public enum PersonMatteTrust {
    /// Above this a pixel is likely the subject's.
    public static let likely: Float = 0.1
    /// At or above this the network is sure of a pixel.
    public static let sure: Float = 0.9
    /// The largest share of the likely pixels that may be unsure for the matte to hold someone: between the
    /// dahlias' 0.10 and the avocados' 0.24.
    public static let mostUnsure = 0.16
    /// Below this share of the frame at 0.5 or more, nobody was found.
    public static let leastSubject = 0.005

    /// The share of the matte's likely pixels it is unsure of (0 when none is likely).
    public static func unsureShare(_ matte: FloatPlane) -> Double {
        var likelyCount = 0, unsureCount = 0
        for a in matte.samples where a > likely {
            likelyCount += 1
            if a < sure { unsureCount += 1 }
        }
        return likelyCount == 0 ? 0 : Double(unsureCount) / Double(likelyCount)
    }

    /// True when the matte covers at least `leastSubject` of the frame at 0.5 and at most `mostUnsure` of what
    /// it calls likely is unsure: a subject to fuse with depth or to estimate depth from.
    public static func holdsSomeone(_ matte: FloatPlane) -> Bool {
        guard matte.width > 0, matte.height > 0, matte.channels == 1 else { return false }
        let found = matte.samples.reduce(0) { $0 + ($1 >= 0.5 ? 1 : 0) }
        return Double(found) >= leastSubject * Double(matte.width * matte.height) && unsureShare(matte) <= mostUnsure
    }
}
