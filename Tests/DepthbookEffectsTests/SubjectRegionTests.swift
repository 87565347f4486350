import Testing
@testable import DepthbookEffects

/// `SubjectRegion` on small hand-made masks, where the answer is exact.
struct SubjectRegionTests {
    /// Rows of a mask: "#" near, "." far.
    static func mask(_ rows: [String]) -> (samples: [Float], width: Int, height: Int) {
        (rows.flatMap { $0.map { $0 == "#" ? Float(1) : 0 } }, rows[0].count, rows.count)
    }

    static func picture(_ samples: [Float], width: Int) -> [String] {
        stride(from: 0, to: samples.count, by: width).map { String(samples[$0..<($0 + width)].map { $0 >= 0.5 ? "#" : "." }) }
    }

    /// The part under the seed is kept (its hole filled); a larger part elsewhere is dropped.
    @Test func theRegionAroundTheSeedWithItsHolesFilled() {
        let m = Self.mask(["##......",
                           "##..###.",
                           "##..#.#.",
                           "##..###.",
                           "##......"])
        let out = SubjectRegion.select(m.samples, width: m.width, height: m.height, seed: (x: 0.7, y: 0.5))
        #expect(Self.picture(out, width: m.width) == ["........",
                                                      "....###.",
                                                      "....###.",
                                                      "....###.",
                                                      "........"])
    }

    /// Without a seed, the large part nearest the frame's centre; specks are never chosen over it.
    @Test func withoutASeedTheLargePartNearestTheCentre() {
        let m = Self.mask(["#...........",
                           "......###...",
                           "......###...",
                           "......###...",
                           "###.........",
                           "###.........",
                           "###........."])
        let out = SubjectRegion.select(m.samples, width: m.width, height: m.height, seed: nil)
        #expect(Self.picture(out, width: m.width)[1...3].allSatisfy { $0 == "......###..." })
        #expect(out.reduce(0, +) == 9)
    }

    /// A seed off the mask takes the part nearest to it within reach; an empty mask stays empty.
    @Test func aSeedJustOffTheMaskAndAnEmptyMask() {
        let m = Self.mask(["..........",
                           "...##.....",
                           "...##.....",
                           ".........."])
        let out = SubjectRegion.select(m.samples, width: m.width, height: m.height, seed: (x: 0.55, y: 0.5), reach: 0.2)
        #expect(out == m.samples)
        let empty = [Float](repeating: 0, count: 12)
        #expect(SubjectRegion.select(empty, width: 4, height: 3, seed: (x: 0.5, y: 0.5)) == empty)
    }

    /// Two people side by side at the same distance, their faces found: both parts are the region. A third face on
    /// a far pixel (someone further back) joins nothing, though a near part lies one pixel beside it.
    @Test func everyFaceOnANearPartJoinsTheRegion() {
        let m = Self.mask(["............",
                           ".##....##...",
                           ".##....##...",
                           ".##....##.#.",
                           "............"])
        let both = SubjectRegion.select(m.samples, width: m.width, height: m.height, seed: (x: 0.15, y: 0.5),
                                        others: [(x: 0.65, y: 0.5), (x: 0.95, y: 0.7)])
        #expect(Self.picture(both, width: m.width) == ["............",
                                                       ".##....##...",
                                                       ".##....##...",
                                                       ".##....##...",
                                                       "............"])
        // Without the second face, only the seed's part, as before.
        let one = SubjectRegion.select(m.samples, width: m.width, height: m.height, seed: (x: 0.15, y: 0.5))
        #expect(one.reduce(0, +) == 6)
    }
}
