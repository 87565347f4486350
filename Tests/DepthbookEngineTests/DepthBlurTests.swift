@testable import DepthbookEngine
import DepthbookTestSupport
import Testing

/// Synthetic depth of field: identity when everything is in focus, no halos, region independence.
@Suite(.timeLimit(.minutes(30)))
struct DepthBlurTests {
    /// A red square (near, disparity 2) over a noisy green/blue background (far, disparity 0.5).
    static let size = 48
    static func inSquare(_ x: Int, _ y: Int) -> Bool { (16..<32).contains(x) && (16..<32).contains(y) }
    static let image: Raster<Float> = {
        let noise = EngineFixtures.noise(width: size, height: size, channels: 1, seed: 7)
        var s = [Float](repeating: 0, count: size * size * 3)
        for y in 0..<size { for x in 0..<size {
            let i = (y * size + x) * 3
            if inSquare(x, y) { s[i] = 1; s[i + 1] = 0; s[i + 2] = 0 } else { s[i] = 0; s[i + 1] = noise.samples[y * size + x]; s[i + 2] = 1 }
        } }
        return Raster(width: size, height: size, channels: 3, samples: s)
    }()
    static let disparity = DepthScenes.plane(width: size, height: size) { x, y in inSquare(x, y) ? 2 : 0.5 }

    func blurNode(_ blur: DepthBlur) throws -> Node {
        try Node(blur, [EngineFixtures.source(Self.image, id: "img"), EngineFixtures.source(Self.disparity, id: "disp")])
    }

    @Test func f22WithFocusEverywhereIsTheInput() throws {
        let node = try blurNode(DepthBlur(aperture: 22, maxRadius: 40, focusNear: 0, focusFar: 1, low: 0.5, high: 2))
        #expect(try DepthScenes.render(node).samples == Self.image.samples)
    }

    /// A wide aperture makes the blurry copy (its reach is past the direct gather) although no pixel is out of
    /// focus: every block of the copy is empty. That trapped on a negative reach (the pug's depth of field at
    /// the page's 736-px width); it is the input.
    @Test func aWideApertureWithEveryPixelInFocusIsTheInput() throws {
        let blur = try DepthBlur(aperture: 1.4, maxRadius: 400, focusNear: 0, focusFar: 1, low: 0.5, high: 2)
        #expect(DepthBlur.factor(reach: blur.reach(scale: 1)) > 1)
        #expect(try DepthScenes.render(blurNode(blur)).samples == Self.image.samples)
    }

    @Test func backgroundBlursWithoutHalosAndTheSubjectStaysSharp() throws {
        let node = try blurNode(DepthBlur(aperture: 1.4, maxRadius: 6, focusNear: 1, focusFar: 1, low: 0.5, high: 2))
        let out = try DepthScenes.render(node).samples
        var backgroundVariance = (before: 0.0, after: 0.0, count: 0)
        for y in 0..<Self.size { for x in 0..<Self.size {
            let i = (y * Self.size + x) * 3
            if Self.inSquare(x, y) {
                // The sharp subject keeps its colour exactly: nothing from the background spills onto it.
                #expect(out[i] == 1 && out[i + 1] == 0 && out[i + 2] == 0)
            } else {
                // No halo: the red subject never glows into the blurred background.
                #expect(out[i] == 0)
                #expect(abs(out[i + 2] - 1) < 1e-5)
                let g0 = Double(Self.image.samples[i + 1]) - 0.5, g1 = Double(out[i + 1]) - 0.5
                backgroundVariance.before += g0 * g0
                backgroundVariance.after += g1 * g1
                backgroundVariance.count += 1
            }
        } }
        // Uniform noise has variance 1/12; a disc of radius 6 (113 px) averages most of it away.
        #expect(backgroundVariance.after < backgroundVariance.before / 10)
    }

    @Test func aRegionIsTheSameAsTheCropOfTheWholeFrame() throws {
        let node = try blurNode(DepthBlur(aperture: 2, maxRadius: 5, focusNear: 0, focusFar: 0.2, low: 0.5, high: 2))
        let whole = try DepthScenes.render(node)
        let region = PixelRect(x: 9, y: 20, width: 17, height: 11)
        let part = try Evaluator().render(node, RenderTarget(size: node.extent, region: region))
        #expect(part.samples == whole.cropped(to: region).samples)
    }

    /// Radii above `directReach` go through the block-averaged copy. It must keep what the direct gather
    /// guarantees: the sharp subject exact, no red halo in the background, any tiling or thread count giving
    /// the same pixels; and it must still blur (a wide disc over noise leaves values near the mean).
    @Test func wideDiscsKeepTheSubjectSharpWithoutHalosWhateverTheTiling() throws {
        let wide = try blurNode(DepthBlur(aperture: 1.4, maxRadius: 24, focusNear: 1, focusFar: 1, low: 0.5, high: 2))
        #expect(DepthBlur.factor(reach: 24) == 3)
        let out = try DepthScenes.render(wide).samples
        var blurredGreen: [Float] = []
        for y in 0..<Self.size { for x in 0..<Self.size {
            let i = (y * Self.size + x) * 3
            if Self.inSquare(x, y) {
                #expect(out[i] == 1 && out[i + 1] == 0 && out[i + 2] == 0, "subject pixel (\(x), \(y)) changed")
            } else {
                #expect(out[i] < 1e-6, "red halo at (\(x), \(y)): \(out[i])")
                #expect(abs(out[i + 2] - 1) < 1e-5)
                blurredGreen.append(out[i + 1])
            }
        } }
        // A disc of radius 24 over uniform noise in 0...1: every background value is close to the mean.
        let mean = blurredGreen.reduce(0, +) / Float(blurredGreen.count)
        #expect(abs(mean - 0.5) < 0.05)
        #expect(blurredGreen.allSatisfy { abs($0 - mean) < 0.12 })
        for region in [PixelRect(x: 9, y: 20, width: 17, height: 11), PixelRect(x: 0, y: 0, width: 5, height: 48),
                       PixelRect(x: 31, y: 13, width: 17, height: 30)] {
            let part = try Evaluator().render(wide, RenderTarget(size: wide.extent, region: region))
            let whole = try DepthScenes.render(wide).cropped(to: region).samples
            #expect(part.samples == whole, "region \(region)")
        }
        let single = try Evaluator(context: RenderContext(threads: 1)).render(wide, RenderTarget(size: wide.extent))
        #expect(single.samples == out)
    }

    @Test func focusRangeMustBeOrdered() {
        #expect(throws: RenderError.self) { try DepthBlur(aperture: 2, maxRadius: 5, focusNear: 0.6, focusFar: 0.2, low: 0, high: 1) }
        #expect(throws: RenderError.self) { try DepthBlur(aperture: 0.5, maxRadius: 5, focusNear: 0, focusFar: 1, low: 0, high: 1) }
    }
}
