import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// `NotebookRenderer.frames`: the loop a GIF export encodes, for animated steps only.
@Suite(.timeLimit(.minutes(30)))
struct AnimationFramesTests {
    typealias S = EffectTestSupport

    static func notebook() -> Notebook {
        S.notebook([
            S.step("wiggle", "wiggle", ["image": "photo", "disparity": "photo.disparity"], ["amplitude": .number(6), "phase": .number(0.9)]),
            S.step("cut", "threshold", ["input": "photo.disparity"]),
        ])
    }

    @Test func framesHaveTheRequestedCountAndSizeAndWalkThePhase() throws {
        let photo = try S.sample("portrait", width: 128)
        let renderer = NotebookRenderer(photo: photo)
        var done = [Int]()
        let frames = try renderer.frames(notebook: Self.notebook(), cell: "wiggle", width: 64, count: 5, frameDone: { done.append($0) })
        let height = Int((64.0 * Double(photo.height) / Double(photo.width)).rounded())
        #expect(frames.count == 5)
        #expect(frames.allSatisfy { $0.width == 64 && $0.height == height && $0.channels == 3 })
        #expect(done == [0, 1, 2, 3, 4])
        // Frame k is the cell rendered with its phase at k/5 (the cell's own phase is overridden).
        var reference = Self.notebook()
        reference.cells[1].params?["phase"] = .number(0.4)
        let expected = try NotebookRenderer(photo: photo).render(notebook: reference, cell: "wiggle", request: CellRenderRequest(width: 64))
        #expect(frames[2].samples == expected.image.samples)
        #expect(frames[0].samples != frames[2].samples)
    }

    /// Every frame after the first reads the image and disparity at the loop's size from the loop's cache: the
    /// frames themselves are not kept, so a cache with room for the inputs and less than a frame more holds them.
    @Test func loopFramesShareTheirInputsThroughTheLoopCache() throws {
        let photo = try S.sample("portrait", width: 128)
        let renderer = NotebookRenderer(photo: photo)
        let height = Int((64.0 * Double(photo.height) / Double(photo.width)).rounded())
        let map = try #require(photo.depth?.map)
        let inputs = 64 * height * 4 * (3 + 1) + map.width * map.height * 4, frame = 64 * height * 3 * 4
        let cache = RenderCache(byteLimit: inputs + frame / 2)
        for k in 0..<4 {
            _ = try renderer.loopFrame(notebook: Self.notebook(), cell: "wiggle", width: 64, count: 4, index: k, cache: cache)
        }
        #expect(cache.hits >= 2 * 3, "hits \(cache.hits), misses \(cache.misses)")
    }

    @Test func stillCellsAndBadCountsAreRefused() throws {
        let renderer = NotebookRenderer(photo: try S.sample("portrait", width: 128))
        #expect(throws: EffectError.notAnimated("cut")) { try renderer.frames(notebook: Self.notebook(), cell: "cut", width: 64, count: 4) }
        #expect(throws: EffectError.notAnimated("photo")) { try renderer.frames(notebook: Self.notebook(), cell: "photo", width: 64, count: 4) }
        #expect(throws: EffectError.unknownCell("nope")) { try renderer.frames(notebook: Self.notebook(), cell: "nope", width: 64, count: 4) }
        #expect(throws: EffectError.self) { try renderer.frames(notebook: Self.notebook(), cell: "wiggle", width: 64, count: 1) }
        #expect(EffectError.notAnimated("cut").description.contains("wiggle"))
    }

    @Test func onlyWiggleIsAnimatedInTheCatalogJSON() throws {
        let data = try JSONEncoder().encode(NotebookRenderer.catalog)
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let animated = list.filter { $0["animated"] as? Bool == true }.compactMap { $0["id"] as? String }
        #expect(animated == ["wiggle"])
        #expect(list.allSatisfy { $0["animated"] is Bool })
    }
}
