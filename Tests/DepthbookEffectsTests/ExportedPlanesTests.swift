import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// A saved result's depth and mattes go where the recipe put the image's pixels (the 2017 talk's rule), and
/// stay exactly as the photo has them when nothing moved.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct ExportedPlanesTests {
    typealias S = EffectTestSupport
    static let selfie = "fidmaa-portrait-analyser__heic_depth_data.heic"

    /// `plane` magnified `zoom` times about its centre, written out: bilinear upsampling with half-pixel centres
    /// and clamped edges (what a plane rendered larger than its native size is), then the centred window.
    static func zoomedReference(_ plane: FloatPlane, zoom: Int) -> [Float] {
        let w = plane.width, h = plane.height
        let dx = (w * zoom - w) / 2, dy = (h * zoom - h) / 2
        func at(_ x: Int, _ y: Int) -> Float { plane.samples[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)] }
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let u = (Double(x + dx) + 0.5) / Double(zoom) - 0.5, v = (Double(y + dy) + 0.5) / Double(zoom) - 0.5
                let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
                let fx = Float(u - Double(x0)), fy = Float(v - Double(y0))
                let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
                let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
                out[y * w + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// A 2× zoom crop about the centre of the selfie: the saved disparity and every matte are the photo's own
    /// magnified about the same centre, at their own resolutions; faces and calibration are left out.
    @Test func aZoomCropMovesDepthAndMattesWithTheImage() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(Self.selfie))
        let notebook = S.notebook([S.step("zoom", "zoomCrop", ["image": "photo"],
                                          ["zoom": .number(2), "point": .point(x: 0.5, y: 0.5)])])
        let exported = try NotebookRenderer(photo: photo).exportedPhoto(notebook: notebook, cell: "zoom")
        #expect(exported.planesFollowed)
        #expect(exported.photo.faces.isEmpty && exported.photo.calibration == nil)

        let original = try #require(photo.depth).converted(to: .disparity).map
        let saved = try #require(exported.photo.depth)
        #expect(saved.kind == .disparity && saved.map.width == original.width && saved.map.height == original.height)
        let range = try #require(original.validRange())
        let tolerance = (range.upperBound - range.lowerBound) * 2e-3
        let expected = Self.zoomedReference(original, zoom: 2)
        var worst: Float = 0
        for (a, b) in zip(saved.map.samples, expected) where !a.isNaN && !b.isNaN { worst = max(worst, abs(a - b)) }
        #expect(worst <= tolerance, "disparity off by \(worst) (tolerance \(tolerance))")

        #expect(exported.photo.mattes.map(\.kind) == photo.mattes.map(\.kind))
        for (savedMatte, matte) in zip(exported.photo.mattes, photo.mattes) {
            let expected = Self.zoomedReference(matte.plane, zoom: 2)
            let worst = zip(savedMatte.plane.samples, expected).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 2e-3, "\(matte.kind) off by \(worst)")
        }
    }

    /// A recipe that only changes tone (Noir) keeps the photo's planes, faces and calibration bit for bit.
    @Test func tonalStepsKeepThePlanesAsTheyAre() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let notebook = S.notebook([S.step("noir", "noir", ["image": "photo"])])
        let exported = try NotebookRenderer(photo: photo).exportedPhoto(notebook: notebook, cell: "noir")
        #expect(!exported.planesFollowed)
        #expect(exported.photo.depth?.map.samples.elementsEqual(try #require(photo.depth).map.samples) { $0 == $1 || ($0.isNaN && $1.isNaN) } == true)
        #expect(exported.photo.depth?.calibration == photo.depth?.calibration)
        #expect(exported.photo.faces == photo.faces && !photo.faces.isEmpty)
        #expect(exported.photo.mattes.count == photo.mattes.count)
    }

    /// The dolly zoom of the bundled notebook in the talk's look (black past the frame): the saved disparity is
    /// black (farthest) where the view runs past the photo, as the image is, and differs from the photo's own
    /// where the camera moved. (At the defaults nothing is left black: the frame is filled.)
    @Test func aDollyZoomTakesItsDepthAlong() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(Self.selfie))
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "dolly-zoom" })
        let cell = try #require(notebook.cells.last { $0.kind == .step && $0.effect == "dollyZoom" && ($0.params?["dolly"]?.number ?? 0) != 0
            && $0.params?["frame"] == .choice("black") })
        let exported = try NotebookRenderer(photo: photo).exportedPhoto(notebook: notebook, cell: cell.id)
        #expect(exported.planesFollowed)
        let original = try #require(photo.depth).converted(to: .disparity).map
        let saved = try #require(exported.photo.depth).map
        let changed = zip(saved.samples, original.samples).filter { !$0.0.isNaN && !$0.1.isNaN && abs($0.0 - $0.1) > 0.05 }.count
        #expect(changed > saved.samples.count / 50, "the dolly zoom moved the image but not its depth (\(changed) pixels differ)")
        // Where the image is black past the frame, the depth is the farthest the photo has.
        let image = exported.photo.image
        let low = try #require(original.validRange()).lowerBound
        var blackPast = 0, farPast = 0
        for y in 0..<saved.height {
            for x in 0..<saved.width {
                let ix = (x * image.width + image.width / 2) / saved.width, iy = (y * image.height + image.height / 2) / saved.height
                let i = (iy * image.width + ix) * 3
                guard image.samples[i] == 0, image.samples[i + 1] == 0, image.samples[i + 2] == 0 else { continue }
                blackPast += 1
                if abs(saved.samples[y * saved.width + x] - low) < 0.02 { farPast += 1 }
            }
        }
        if blackPast > 0 { #expect(Double(farPast) >= 0.9 * Double(blackPast)) }
    }
}
