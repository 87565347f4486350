import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Testing
@testable import DepthbookEffects

/// Bundled backgrounds are painted at the size rendered: a full-size export is as sharp as its pixels, and
/// any region of a frame is the same pixels as the whole frame there.
@Suite(.timeLimit(.minutes(30)))
struct BundledBackgroundTests {
    typealias S = EffectTestSupport

    /// The mountains behind the 12 MP pug, at the photo's full 4032 px: where the far ridge's snow meets the
    /// sky, each column passes from sky to snow through at most one pixel (its anti-aliased edge). Made at
    /// 1600 px and enlarged 2.5 times, as before, the edge took 2-4 pixels and stood in steps.
    @Test(.enabled(if: SharedPhotos.available, "needs ../shared/photos"))
    func mountainsAreSharpAtFullSize() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "backdrop" })
        // The notebook leaves the background at its default (it states only what differs): the mountains.
        let scenery = try #require(notebook.cell("scenery"))
        #expect(ResolvedParameters(scenery.params ?? [:], for: BackgroundImageEffect.description)[BackgroundImageEffect.name] == "mountains")
        let image = try S.floats(photo, notebook, "scenery", width: photo.width)
        #expect(image.width == 4032 && image.height == 3024)
        var edges = 0
        for x in stride(from: 7, to: image.width, by: 97) {
            func blueOverRed(_ y: Int) -> Float { image[frameX: x, frameY: y, channel: 2] - image[frameX: x, frameY: y, channel: 0] }
            // The first snow pixel from the top (white: red ≥ 0.94, blue barely above red), if the column has snow.
            guard let snow = (0..<image.height).first(where: { image[frameX: x, frameY: $0, channel: 0] >= 0.94 && blueOverRed($0) < 0.035 })
            else { continue }
            #expect(blueOverRed(snow - 3) > 0.2, "column \(x): sky three pixels above the snow")
            let between = (snow - 6..<snow).filter { blueOverRed($0) > 0.04 && blueOverRed($0) < 0.19 }
            #expect(between.count <= 1, "column \(x): \(between.count) pixels between sky and snow")
            edges += 1
        }
        #expect(edges >= 20, "the far ridge's snow shows in \(edges) of the sampled columns")
    }

    @Test(arguments: ["mountains", "abstract", "space"])
    func aRegionIsTheWholeFrameThere(id: String) throws {
        let node = try Node(BackgroundFilter(id: id, size: PixelSize(width: 400, height: 300)))
        let target = PixelSize(width: 333, height: 250)
        let whole = try Evaluator().render(node, RenderTarget(size: target))
        let rect = PixelRect(x: 41, y: 77, width: 150, height: 91)
        let part = try Evaluator().render(node, RenderTarget(size: target, region: rect))
        #expect(part.samples == whole.cropped(to: rect).samples)
        #expect(Set(whole.samples).count > 100, "\(id) is flat")
    }

    @Test func anUnknownBackgroundIsRefused() {
        #expect(throws: EffectError.self) { try BackgroundFilter(id: "moon", size: PixelSize(width: 8, height: 8)) }
    }
}
