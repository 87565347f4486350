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
}
