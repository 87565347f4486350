import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// Every bundled notebook on every shared photo at the widths the page asks for, and crops at the frame's
/// edges: a render either succeeds at the size asked or names what the photo lacks. A Swift trap ends the
/// whole server, so this sweep exists to find one before a person does (the pug's depth of field trapped at
/// 700–850 px, the page's own width, while every test rendered at 64).
///
/// The page asks for multiples of 32 from 64 to 2048 and, while a slider moves, half of them (never under
/// 64); the sweep takes its usual widths, odd ones, and a few chosen at random from a printed seed
/// (`DEPTHBOOK_SWEEP_SEED` repeats a run). `scripts/render-sweep.sh` renders the whole range from the command line.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct RenderSweepTests {
    static let photos: [(name: String, depth: String?)] = RealPhotoNotebookTests.photos + [
        ("depthy__hut-image.jpg", "depthy__hut-depth.jpg"),
    ]

    static let seed: UInt64 = {
        let given = ProcessInfo.processInfo.environment["DEPTHBOOK_SWEEP_SEED"].flatMap { UInt64($0) }
        let seed = given ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("render sweep: DEPTHBOOK_SWEEP_SEED=\(seed)")
        return seed
    }()

    /// Widths every cell is rendered at: the page's smallest, its default and its drag's coarse half, and one
    /// page width chosen at random (a multiple of 16, as a coarse frame's is).
    static func widths(for photo: String) -> [Int] {
        var generator = SplitMix64(seed: seed &+ UInt64(photo.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        return [64, 368, 736, 16 * Int.random(in: 4...128, using: &generator)]
    }

    /// Widths a notebook's last cell (its result) is rendered at besides: odd ones, the widest, one at random.
    static func resultWidths(for photo: String) -> [Int] {
        var generator = SplitMix64(seed: seed &+ 7 &+ UInt64(photo.utf8.count))
        return [65, 737, 2048, Int.random(in: 64...2048, using: &generator)]
    }

    @Test(arguments: photos.map(\.name))
    func everyCellRendersAtThePagesWidths(file: String) throws {
        let depth = Self.photos.first { $0.name == file }?.depth
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path))
        let renderer = NotebookRenderer(photo: photo, cacheBytes: 128 << 20)
        let widths = Self.widths(for: file)
        var rendered = 0
        for notebook in try EffectTestSupport.bundledNotebooks() {
            print("render sweep: \(file) \(notebook.name) at \(widths)")
            for cell in notebook.cells where cell.kind != .note {
                for width in widths {
                    if try render(renderer, notebook, cell.id, .preview(width: width), photo) { rendered += 1 }
                }
            }
            // The last cell (the notebook's result) at more widths, and cropped at every edge of the frame.
            guard let last = notebook.cells.last(where: { $0.kind != .note }) else { continue }
            for width in Self.resultWidths(for: file) {
                _ = try render(renderer, notebook, last.id, .preview(width: width), photo)
            }
            let w = photo.width, h = photo.height
            for (x, y, cw, ch) in [(0, 0, 256, 256), (w - 256, h - 256, 256, 256), (w - 1, 0, 1, 1), (0, h - 1, 1024, 1),
                                   (w - 100, h / 2, 1024, 1024), (w / 2, h - 3, 5, 1024)] {
                _ = try render(renderer, notebook, last.id, .crop(x: x, y: y, width: cw, height: ch), photo)
            }
        }
        #expect(rendered > 0)
    }

    /// The pug's depth of field at every width a page asks for (multiples of 32), and at every width across
    /// the band that trapped.
    @Test func thePugsDepthOfFieldAtEveryPageWidth() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let renderer = NotebookRenderer(photo: photo, cacheBytes: 128 << 20)
        let notebook = try #require(try EffectTestSupport.bundledNotebooks().first { $0.name == "depth-of-field" })
        let widths = Array(stride(from: 64, through: 2048, by: 32)) + Array(690...860)
        for width in Set(widths).sorted() {
            #expect(try render(renderer, notebook, "preview", .preview(width: width), photo), "width \(width)")
        }
    }

    /// Renders one request: true when it rendered at the size asked; false when the photo lacks a plane the
    /// cell needs (a clear refusal). Any other error is a failure of the test.
    func render(_ renderer: NotebookRenderer, _ notebook: Notebook, _ cell: String, _ request: CellRenderRequest,
                _ photo: Photo) throws -> Bool {
        do {
            let out = try renderer.render(notebook: notebook, cell: cell, request: request)
            if let region = request.region {
                let clipped = min(region.width, photo.width - region.x) * min(region.height, photo.height - region.y)
                #expect(out.image.width * out.image.height == clipped, "\(notebook.name)/\(cell) crop \(region)")
            } else {
                #expect(out.image.width == request.width, "\(notebook.name)/\(cell) at \(request.width)")
            }
            return true
        } catch let error as EffectError {
            if case .missingPlane = error { return false }
            Issue.record("\(notebook.name)/\(cell) \(request): \(error)")
            return false
        }
    }
}
