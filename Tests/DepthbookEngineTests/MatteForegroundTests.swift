@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// Colour decontamination against a scene made by the compositing equation itself, I = α·F + (1 − α)·B, so the
/// subject's colour F is known exactly where the photo only shows the mix.
@Suite(.timeLimit(.minutes(30)))
struct MatteForegroundTests {
    static let width = 96, height = 24
    static let skin: [Float] = [0.8, 0.5, 0.3], wall: [Float] = [0.9, 0.9, 0.95]

    /// 0 on the left, a ramp whose position moves with the row (a slanted soft edge), 1 on the right.
    static func alpha(_ x: Int, _ y: Int) -> Float {
        let start = 18 + y / 3, length = 8
        return min(max(Float(x - start) / Float(length), 0), 1)
    }

    /// The image and matte of a subject coloured `subject(x, y)` in front of `behind(x, y)`.
    static func scene(subject: (Int, Int) -> [Float], behind: (Int, Int) -> [Float]) -> (image: [Float], matte: [Float]) {
        var image = [Float](), matte = [Float]()
        for y in 0..<height {
            for x in 0..<width {
                let a = alpha(x, y), f = subject(x, y), b = behind(x, y)
                matte.append(a)
                for c in 0..<3 { image.append(a * f[c] + (1 - a) * b[c]) }
            }
        }
        return (image, matte)
    }

    static func decontaminated(_ image: [Float], _ matte: [Float], output: MatteForeground.Output = .colour) throws -> [Float] {
        let imageNode = try EngineFixtures.source(Raster(width: width, height: height, channels: 3, samples: image), id: "image")
        let matteNode = try EngineFixtures.source(Raster(width: width, height: height, channels: 1, samples: matte), id: "matte")
        let node = try Node(MatteForeground(output: output), [imageNode, matteNode])
        return try Evaluator().render(node, RenderTarget(size: node.extent)).samples
    }

    @Test func recoversTheSubjectsColourAndRebuildsThePhoto() throws {
        let (image, matte) = Self.scene(subject: { _, _ in Self.skin }, behind: { _, _ in Self.wall })
        let out = try Self.decontaminated(image, matte)
        #expect(EngineFixtures.maxDifference(try Self.decontaminated(image, matte, output: .matte), matte) < 1e-5,
                "the colours agree with the matte, so the fitted matte is the matte")
        var worst: Float = 0, rebuilt: Float = 0, edgePixels = 0
        for i in 0..<matte.count {
            let a = matte[i]
            for c in 0..<3 {
                let j = i * 3 + c
                if a == 0 {
                    #expect(out[j] == image[j], "a pixel the matte leaves out changed")
                } else if a == 1 {
                    #expect(abs(out[j] - image[j]) < 1e-5, "a pixel of the subject changed")
                } else if a > MatteForeground.pure {
                    worst = max(worst, abs(out[j] - Self.skin[c]))
                    rebuilt = max(rebuilt, abs(a * out[j] + (1 - a) * Self.wall[c] - image[j]))
                }
            }
            if a > MatteForeground.pure && a < 1 { edgePixels += 1 }
        }
        print("matteForeground: \(edgePixels) edge pixels, largest error of the subject's colour \(worst), of the rebuilt photo \(rebuilt)")
        #expect(edgePixels > 150)
        #expect(worst < 1e-4)
        #expect(rebuilt < 1e-4)
    }

    /// Textured subject and background: the estimate is not exact, but the wall's light leaves the edge. Measured
    /// as the error of the colour a treatment would see, against taking the photo's mixed pixel as the subject's.
    @Test func takesMostOfTheBackgroundOutOfATexturedEdge() throws {
        let subject = { (x: Int, y: Int) -> [Float] in
            let t = Float((x * 7 + y * 3) % 11) / 110
            return [0.55 + t, 0.35 + t, 0.25 + t]
        }
        let behind = { (x: Int, y: Int) -> [Float] in
            let t = Float((x * 5 + y * 11) % 13) / 130
            return [0.85 + t, 0.85 + t, 0.88 + t]
        }
        let (image, matte) = Self.scene(subject: subject, behind: behind)
        let out = try Self.decontaminated(image, matte)
        var ours = 0.0, mixed = 0.0, count = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let i = y * Self.width + x, a = matte[i]
                guard a >= 0.2 && a < 1 else { continue }
                let f = subject(x, y)
                for c in 0..<3 {
                    ours += Double(abs(out[i * 3 + c] - f[c]))
                    mixed += Double(abs(image[i * 3 + c] - f[c]))
                    count += 1
                }
            }
        }
        ours /= Double(count)
        mixed /= Double(count)
        print("matteForeground, textured edge: mean |estimate - subject| \(ours * 255) levels, |photo - subject| \(mixed * 255) levels")
        #expect(ours < mixed / 4)
        #expect(ours * 255 < 8)
    }

    /// A matte a few pixels wider than the subject (as Apple's sits a pixel or two past the photo's edge): the
    /// fitted matte drops the wall it held, and the colour blended through it shows no wall.
    @Test func aMatteThatHoldsTheWallIsFittedToThePhoto() throws {
        let (image, truth) = Self.scene(subject: { _, _ in Self.skin }, behind: { _, _ in Self.wall })
        let wide = (0..<truth.count).map { i in truth[min(i + 2, (i / Self.width + 1) * Self.width - 1)] }
        let fitted = try Self.decontaminated(image, wide, output: .matte)
        let colour = try Self.decontaminated(image, wide)
        var matteError: Float = 0, fittedError: Float = 0, rim: Float = 0
        for i in 0..<truth.count where wide[i] > MatteForeground.pure {
            matteError = max(matteError, abs(wide[i] - truth[i]))
            fittedError = max(fittedError, abs(fitted[i] - truth[i]))
            // Blended over black through the fitted matte, against the true subject over black.
            for c in 0..<3 { rim = max(rim, abs(fitted[i] * colour[i * 3 + c] - truth[i] * Self.skin[c])) }
        }
        print("matteForeground, matte 2 px wide: largest matte error \(matteError), fitted \(fittedError), composite over black \(rim)")
        #expect(matteError > 0.1)
        #expect(fittedError < 1e-4)
        #expect(rim < 1e-4)
    }

    @Test func aMatteWithNoSoftEdgeOrNoBackgroundLeavesThePhoto() throws {
        let (image, _) = Self.scene(subject: { _, _ in Self.skin }, behind: { _, _ in Self.wall })
        let hard = (0..<(Self.width * Self.height)).map { Float($0 % Self.width >= 30 ? 1 : 0) }
        #expect(try Self.decontaminated(image, hard) == image)
        let noBackground = (0..<(Self.width * Self.height)).map { Float($0 % Self.width >= 30 ? 1 : 0.6) }
        #expect(try Self.decontaminated(image, noBackground) == image)
    }
}
