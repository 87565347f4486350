import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// The dolly-zoom notebook on every shared photo with depth: at their defaults, moving in and pulling out leave
/// (almost) no black in the frame, where the talk's look left a quarter of it black.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct DollyZoomFrameTests {
    typealias S = EffectTestSupport

    static let photos: [(name: String, depth: String?)] = [
        ("pillow_heif__pug.heic", nil),
        ("fidmaa-portrait-analyser__heic_depth_data.heic", nil),
        ("fidmaa-portrait-analyser__jpeg_depth_data.jpg", nil),
        ("spite-lensblur-extractor__table.jpg", nil),
        ("exifr__with_deth_map.jpg", nil),
        ("depthy__flowers-image.jpg", "depthy__flowers-depth.jpg"),
        ("depthy__hut-image.jpg", "depthy__hut-depth.jpg"),
        ("depthy__mango-image.jpg", "depthy__mango-depth.jpg"),
        ("depthy__shelf-image.jpg", "depthy__shelf-depth.jpg"),
        ("depthy__tunnel-image.jpg", "depthy__tunnel-depth.jpg"),
    ]

    /// The share of pixels whose every channel is below 1 % (black to the eye, and what a hole renders as).
    static func blackShare(_ image: PixelBuffer) -> Double {
        var black = 0
        for i in 0..<image.region.pixelCount where (0..<3).allSatisfy({ image.samples[i * 3 + $0] < 0.01 }) { black += 1 }
        return Double(black) / Double(max(1, image.region.pixelCount))
    }

    @Test(arguments: photos.map(\.name))
    func movingInAndOutLeavesNoBlack(file: String) throws {
        let depth = Self.photos.first { $0.name == file }?.depth
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "dolly-zoom" })
        let width = 360
        let still = Self.blackShare(try S.floats(photo, notebook, "still", width: width))
        for cell in ["in", "out"] {
            let share = Self.blackShare(try S.floats(photo, notebook, cell, width: width))
            print("dolly-black \(file) \(cell) \(String(format: "%.4f", share)) (still \(String(format: "%.4f", still)))")
            #expect(share <= 0.01, "\(file) \(cell): \(share * 100) % of the frame is black (the photo itself: \(still * 100) %)")
        }
    }

    /// The share of pixels in flat surroundings: the standard deviation of luma (0–255) in their 7×7 window
    /// under 2 levels (issue 38's measure of a smear). Pixels within 3 of the border are not counted.
    static func texturelessShare(_ image: PixelBuffer) -> Double {
        let w = image.region.width, h = image.region.height, ch = image.channels
        guard w > 6, h > 6 else { return 0 }
        var luma = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            luma[i] = 255 * (0.299 * Double(image.samples[i * ch]) + 0.587 * Double(image.samples[i * ch + 1]) + 0.114 * Double(image.samples[i * ch + 2]))
        }
        var flat = 0
        for y in 3..<(h - 3) {
            for x in 3..<(w - 3) {
                var sum = 0.0, squares = 0.0
                for dy in -3...3 { for dx in -3...3 { let v = luma[(y + dy) * w + x + dx]; sum += v; squares += v * v } }
                let mean = sum / 49
                if (max(0, squares / 49 - mean * mean)).squareRoot() < 2 { flat += 1 }
            }
        }
        return Double(flat) / Double((w - 6) * (h - 6))
    }

    /// Where the view magnifies the photo, the photo's own blur spreads: the tunnel's near walls grow as the camera
    /// moves in (0.066 above the photo when measured; 0.049 once its depth was aligned to its subject's mask, at the
    /// limit, so the known issue may or may not be recorded there). (Pulling back from the lens-blurred dahlias was 0.054 above
    /// while the gaps the plate does not reach were filled flat; with their texture, 0.049.)
    /// Pulling back from the dahlias and the hut, the camera stops where a crop enlarges 1.6 times
    /// (`DollyZoom.largestCrop`): the dahlias' lens blur grows with it (0.192 against the photo's 0.086 when
    /// measured; 0.130 with the mirrored continuation it replaced), and the 580-px hut is drawn 2 times finer than
    /// it is (0.388 against 0.334).
    static let magnified: Set<String> = ["depthy__tunnel-image.jpg in", "exifr__with_deth_map.jpg out", "depthy__hut-image.jpg out"]

    /// Moving in and pulling out at 720 px: the frame's extension and the gaps keep the photo's texture (issue 38:
    /// at most 5 points more flat pixels than the photo; pulling back left 19–36 points of smear before).
    @Test(arguments: photos.map(\.name))
    func movingInAndOutKeepsTheTexture(file: String) throws {
        let depth = Self.photos.first { $0.name == file }?.depth
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "dolly-zoom" })
        let width = 720
        let still = Self.texturelessShare(try S.floats(photo, notebook, "still", width: width))
        for cell in ["in", "out"] {
            let share = Self.texturelessShare(try S.floats(photo, notebook, cell, width: width))
            print("dolly-textureless \(file) \(cell) \(String(format: "%.3f", share)) (still \(String(format: "%.3f", still)))")
            withKnownIssue("the view magnifies the photo's own blur here", isIntermittent: true) {
                #expect(share <= still + 0.05, "\(file) \(cell): \(share * 100) % of the view is flat, the photo \(still * 100) %")
            } when: { Self.magnified.contains("\(file) \(cell)") }
        }
    }

    /// The photo with its own pixel positions as its colours: red across, green down (in 255ths of the side),
    /// blue full wherever the photo is drawn. A view of it shows where each of its pixels read the photo.
    static func positions(_ photo: Photo) -> Photo {
        var coded = photo
        let w = photo.image.width, h = photo.image.height
        var image = RGBImage8(width: w, height: h, channels: 3, repeating: 255)
        for y in 0..<h {
            for x in 0..<w {
                image[x, y, 0] = UInt8(255 * x / max(1, w - 1))
                image[x, y, 1] = UInt8(255 * y / max(1, h - 1))
            }
        }
        coded.image = image
        return coded
    }

    /// Rows of the view along which the photo is read upwards (over most of their width, 8 rows down), and
    /// columns along which it is read leftwards: a mirror image of the photo. Inside a view the photo is read
    /// down and to the right; a subject drawn over what it hides reverses that for a pixel or two, not a line.
    static func mirroredLines(_ view: PixelBuffer) -> (rows: Int, columns: Int) {
        let w = view.region.width, h = view.region.height, ch = view.channels, gap = 8
        func drawn(_ x: Int, _ y: Int) -> Bool { view.samples[(y * w + x) * ch + 2] > 0.5 }
        func reversed(_ steps: [Float], of length: Int) -> Bool {
            guard steps.count > length / 2 else { return false }
            return steps.sorted()[steps.count / 2] < 0
        }
        var rows = 0, columns = 0
        for y in 0..<(h - gap) {
            var steps: [Float] = []
            for x in 0..<w where drawn(x, y) && drawn(x, y + gap) {
                steps.append(view.samples[((y + gap) * w + x) * ch + 1] - view.samples[(y * w + x) * ch + 1])
            }
            if reversed(steps, of: w) { rows += 1 }
        }
        for x in 0..<(w - gap) {
            var steps: [Float] = []
            for y in 0..<h where drawn(x, y) && drawn(x + gap, y) {
                steps.append(view.samples[(y * w + x + gap) * ch] - view.samples[(y * w + x) * ch])
            }
            if reversed(steps, of: h) { columns += 1 }
        }
        return (rows, columns)
    }

    /// The share of the photo's width and height a view of its positions shows (the span of the photo's positions
    /// read over the view), and how far the view's reads move from `still`'s on average (in shares of the side).
    static func spanAndMotion(_ view: PixelBuffer, still: PixelBuffer) -> (span: Float, motion: Float) {
        var low: (Float, Float) = (1, 1), high: (Float, Float) = (0, 0), moved: Float = 0
        let ch = view.channels, n = view.region.pixelCount
        for i in 0..<n where view.samples[i * ch + 2] > 0.5 {
            low = (min(low.0, view.samples[i * ch]), min(low.1, view.samples[i * ch + 1]))
            high = (max(high.0, view.samples[i * ch]), max(high.1, view.samples[i * ch + 1]))
            moved += abs(view.samples[i * ch] - still.samples[i * ch]) + abs(view.samples[i * ch + 1] - still.samples[i * ch + 1])
        }
        return (min(high.0 - low.0, high.1 - low.1), moved / Float(2 * max(1, n)))
    }

    /// Pulling back from the iPhone 7 Plus portrait, the ring its head uncovers shows the background plate (the wall
    /// behind the head's edge, inpainted): above the glasses that ring is wider than half the view, and the
    /// inpainting there copies the wall from above it, so 8 rows read the photo upwards (no face or shelf is
    /// doubled; filled from the nearest drawn pixels before, the ring was a smear of hair and skin).
    static let inpaintedAboveTheHead: Set<String> = ["fidmaa-portrait-analyser__jpeg_depth_data.jpg out"]

    /// Moving in and pulling out at 720 px never show a mirror image of the photo past its edges (issue 38: a
    /// second, mirrored scalp above a face, a mirrored shelf, the selfie's sweater pulled back). Measured on the
    /// photo's positions drawn through the notebook's cells: the view at the defaults, and with `frame: fill`
    /// (the mirrored continuation, the default before) for comparison. Where a crop would enlarge the view past
    /// `DollyZoom.largestCrop` the camera stops short: the view still shows at least 1/1.6 of the photo, and it
    /// still moves.
    @Test(arguments: photos.map(\.name))
    func movingInAndOutShowNoMirrorImage(file: String) throws {
        let depth = Self.photos.first { $0.name == file }?.depth
        let photo = Self.positions(try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depth.map(SharedPhotos.path)))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "dolly-zoom" })
        var mirrored = notebook
        for i in mirrored.cells.indices where ["in", "out"].contains(mirrored.cells[i].id) {
            mirrored.cells[i].params = (mirrored.cells[i].params ?? [:]).merging(["frame": .choice("fill")]) { $1 }
        }
        let still = try S.floats(photo, notebook, "still", width: 720)
        for cell in ["in", "out"] {
            let view = try S.floats(photo, notebook, cell, width: 720)
            let lines = Self.mirroredLines(view)
            let before = Self.mirroredLines(try S.floats(photo, mirrored, cell, width: 720))
            let seen = Self.spanAndMotion(view, still: still)
            print("dolly-mirrored \(file) \(cell) rows \(lines.rows) columns \(lines.columns) (frame fill: rows \(before.rows) columns \(before.columns)) span \(String(format: "%.3f", seen.span)) motion \(String(format: "%.4f", seen.motion))")
            withKnownIssue("the plate's wall, inpainted above a head the camera pulls back from, reads the photo upwards") {
                #expect(lines.rows == 0 && lines.columns == 0, "\(file) \(cell): \(lines.rows) rows and \(lines.columns) columns read the photo mirrored")
            } when: { Self.inpaintedAboveTheHead.contains("\(file) \(cell)") }
            #expect(seen.span >= Float(1 / DollyZoom.largestCrop) - 0.02, "\(file) \(cell): the view shows \(seen.span) of the photo")
            #expect(seen.motion > 0.005, "\(file) \(cell): the view barely moves from the still (\(seen.motion))")
        }
    }
}
