import DepthbookEngine
import Testing

/// `PersonMatteTrust` on hand-made mattes, where the shares are counted exactly.
struct PersonMatteTrustTests {
    /// A 20×20 frame holding a 10×10 square at 1 with a one-pixel rim at 0.5 (the soft edge a person has).
    static func crispSquare() -> FloatPlane {
        var samples = [Float](repeating: 0, count: 400)
        for y in 4..<16 { for x in 4..<16 { samples[y * 20 + x] = 0.5 } }
        for y in 5..<15 { for x in 5..<15 { samples[y * 20 + x] = 1 } }
        return FloatPlane(width: 20, height: 20, channels: 1, samples: samples)
    }

    @Test func aCrispSubjectWithASoftRimHoldsSomeone() {
        let matte = Self.crispSquare()
        // 100 sure pixels, 144 − 100 = 44 on the rim: 44 / 144 unsure.
        #expect(PersonMatteTrust.unsureShare(matte) == 44.0 / 144.0)
        // The rim is wide against a square this small; at 30×30 inside a 1-pixel rim the share is 124 / 1024.
        var samples = [Float](repeating: 0, count: 40 * 40)
        for y in 4..<36 { for x in 4..<36 { samples[y * 40 + x] = 0.5 } }
        for y in 5..<35 { for x in 5..<35 { samples[y * 40 + x] = 0.95 } }
        let larger = FloatPlane(width: 40, height: 40, channels: 1, samples: samples)
        #expect(PersonMatteTrust.unsureShare(larger) == 124.0 / 1024.0)
        #expect(PersonMatteTrust.holdsSomeone(larger))
    }

    /// Blotches at half strength (what the network leaves on a photo of objects): mostly unsure, nobody.
    @Test func halfStrengthBlotchesHoldNoOne() {
        var samples = [Float](repeating: 0, count: 40 * 40)
        for y in 4..<36 { for x in 4..<36 { samples[y * 40 + x] = (x + y) % 3 == 0 ? 1 : 0.6 } }
        let blotches = FloatPlane(width: 40, height: 40, channels: 1, samples: samples)
        #expect(PersonMatteTrust.unsureShare(blotches) > 0.6)
        #expect(!PersonMatteTrust.holdsSomeone(blotches))
    }

    /// Nothing likely, or a sure speck under half a per cent of the frame: nobody; a NaN is no one's pixel.
    @Test func anEmptyFrameOrASpeckHoldsNoOne() {
        let empty = FloatPlane(width: 40, height: 40, channels: 1, samples: [Float](repeating: 0.05, count: 1600))
        #expect(PersonMatteTrust.unsureShare(empty) == 0)
        #expect(!PersonMatteTrust.holdsSomeone(empty))
        var speck = [Float](repeating: .nan, count: 1600)
        for i in [0, 1, 40, 41, 42, 43, 44] { speck[i] = 1 }  // 7 pixels: 0.44 % of 1600
        #expect(!PersonMatteTrust.holdsSomeone(FloatPlane(width: 40, height: 40, channels: 1, samples: speck)))
        speck[45] = 1  // 8 pixels: 0.5 %
        #expect(PersonMatteTrust.holdsSomeone(FloatPlane(width: 40, height: 40, channels: 1, samples: speck)))
    }
}
