import DepthbookEngine
import Testing
@testable import DepthbookEffects

/// What `SubjectFusion` makes of a group and of a held object, on hand-made planes where the answer is exact
/// (issue 36: "a person holding an object: say what happens, and test it"). The matte decides the edge, depth
/// decides which of the matte's regions are the subject.
struct SubjectFusionCasesTests {
    /// Rows of a plane: "#" 0.9 (a person in the matte, or near in depth), "." 0.
    static func plane(_ rows: [String]) -> FloatPlane {
        FloatPlane(width: rows[0].count, height: rows.count, channels: 1, samples: rows.flatMap { $0.map { $0 == "#" ? Float(0.9) : 0 } })
    }

    static func picture(_ samples: [Float]?, width: Int) -> [String] {
        guard let samples else { return [] }
        return stride(from: 0, to: samples.count, by: width).map { String(samples[$0..<($0 + width)].map { $0 >= 0.5 ? "#" : "." }) }
    }

    /// Two people the depth region takes in (side by side, as `SubjectRegion` joins them by their faces): both
    /// stay; a third the network found further back, outside depth's region, goes.
    @Test func aGroupDepthPutsInFrontStaysAndSomeoneBehindGoes() {
        let matte = Self.plane(["##...##...##",
                                "##...##...##",
                                "##...##....."])
        let region = Self.plane(["#######.....",
                                 "#######.....",
                                 "#######....."])
        let fused = SubjectFusion.fuse(matte: matte, region: region)
        #expect(Self.picture(fused, width: 12) == ["##...##.....",
                                                   "##...##.....",
                                                   "##...##....."])
    }

    /// A person holding a box out towards the camera: depth's near region takes in the box (nearer still), the
    /// person matte does not. The subject is the person alone: the box is background to every effect (blurred by
    /// depth of field, left behind by Marching).
    /// Depth never adds to the matte's regions; it only chooses among them.
    @Test func aHeldObjectOutsideThePersonMatteIsNotTheSubject() {
        let matte = Self.plane(["..##....",
                                "..##....",
                                ".####...",
                                ".####...",
                                "..##...."])
        let region = Self.plane(["..##....",
                                 "..##....",
                                 ".#######",
                                 ".#######",
                                 "..##...."])
        let fused = SubjectFusion.fuse(matte: matte, region: region)
        #expect(Self.picture(fused, width: 8) == ["..##....",
                                                  "..##....",
                                                  ".####...",
                                                  ".####...",
                                                  "..##...."])
    }

    /// A photo of no one: the network's specks (a chair leg it took for a person) are no subject, however near,
    /// under 1 % of the frame; the effects then take the subject from depth alone. At 1 % they are one.
    @Test func specksUnderAHundredthOfTheFrameAreNoSubject() {
        let width = 40, height = 40
        func matte(side: Int) -> FloatPlane {
            FloatPlane(width: width, height: height, channels: 1,
                       samples: (0..<(width * height)).map { i in i % width < side && i / width < side ? 0.9 : 0 })
        }
        let near = FloatPlane(width: width, height: height, channels: 1, samples: [Float](repeating: 1, count: width * height))
        #expect(SubjectFusion.fuse(matte: matte(side: 3), region: near) == nil, "9 of 1600 pixels")
        #expect(SubjectFusion.fuse(matte: matte(side: 4), region: near) != nil, "16 of 1600 pixels")
    }
}
