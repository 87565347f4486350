import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// Backdrop over a picture the user uploaded: cropped to the photo's shape about its centre, resized once,
/// blended through the face-depth mask; bad references are refused with a message.
@Suite(.timeLimit(.minutes(30)))
struct UploadedBackgroundTests {
    typealias S = EffectTestSupport

    /// Three vertical bands, red | green | blue, three times wider than tall: a centred crop to a portrait
    /// shape lies wholly inside the green band.
    final class BandedUploads: UploadedImages {
        let reads = Locked(0)
        func image(upload id: String) throws -> RGBImage8 {
            reads.withLock { $0 += 1 }
            var samples = [UInt8](repeating: 0, count: 300 * 100 * 3)
            for y in 0..<100 {
                for x in 0..<300 { samples[(y * 300 + x) * 3 + x / 100] = 255 }
            }
            return RGBImage8(width: 300, height: 100, channels: 3, samples: samples)
        }
    }

    /// A fresh id per test: the background cache is shared by the process.
    private func uniqueID() -> String {
        (0..<4).map { _ in String(format: "%016llx", UInt64.random(in: 0...UInt64.max)) }.joined()
    }

    private func backdrop(_ id: String, gamma: Double = 1) -> Notebook {
        S.notebook([S.step("b", "backdrop", ["image": "photo", "disparity": "photo.disparity"],
                           ["backgroundUpload": .choice(id), "blur": .number(0), "gamma": .number(gamma)])])
    }

    @Test func subjectStaysAndTheBackgroundIsTheUploadsCentre() throws {
        let photo = try S.sample("portrait")
        let uploads = BandedUploads()
        let renderer = NotebookRenderer(photo: photo, uploads: uploads)
        let id = uniqueID()
        let out = try renderer.render(notebook: backdrop(id), cell: "b", request: CellRenderRequest(width: photo.width)).image
        let w = photo.width
        func pixel(_ image: RGBImage8, _ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(image.samples[(y * w + x) * 3 + $0]) } }
        // Corners are background (the mask is 0 there): pure green from the upload's middle band.
        for (x, y) in [(2, 2), (w - 3, 2)] {
            let p = pixel(out, x, y)
            #expect(p[0] <= 1 && p[1] >= 254 && p[2] <= 1, "background at (\(x), \(y)) is \(p)")
        }
        // The face is foreground: the photo's own pixel.
        let face = try #require(photo.faces.first)
        let input = try renderer.render(notebook: backdrop(id), cell: "photo", request: CellRenderRequest(width: w)).image
        let (fx, fy) = (Int(face.centerX), Int(face.centerY))
        #expect(zip(pixel(out, fx, fy), pixel(input, fx, fy)).allSatisfy { abs($0 - $1) <= 1 })

        // Moving a slider re-renders without reading or resizing the upload again.
        _ = try renderer.render(notebook: backdrop(id, gamma: 2), cell: "b", request: CellRenderRequest(width: w))
        _ = try renderer.render(notebook: backdrop(id, gamma: 0.5), cell: "b", request: CellRenderRequest(width: w / 2))
        #expect(uploads.reads.withLock { $0 } == 1)
    }

    @Test func coverRectKeepsTheCentreAtTheTargetShape() {
        let wide = Primitives.coverRect(of: PixelSize(width: 300, height: 100), aspect: PixelSize(width: 3, height: 4))
        #expect(wide == PixelRect(x: 112, y: 0, width: 75, height: 100))
        let tall = Primitives.coverRect(of: PixelSize(width: 100, height: 400), aspect: PixelSize(width: 4, height: 3))
        #expect(tall == PixelRect(x: 0, y: 162, width: 100, height: 75))
        let same = Primitives.coverRect(of: PixelSize(width: 64, height: 48), aspect: PixelSize(width: 1280, height: 960))
        #expect(same == PixelRect(x: 0, y: 0, width: 64, height: 48))
    }

    @Test func badReferencesAreRefusedWithAMessage() throws {
        let photo = try S.sample("portrait")
        // A path for an upload id is refused when the notebook arrives (its validation); decoding reads the shape only.
        #expect(throws: EffectError.self) { try NotebookValidator().check(backdrop("../../etc/passwd")) }
        #expect(throws: EffectError.self) { try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(backdrop("../../etc/passwd")))) }
        // A renderer with no uploads folder (the command line without one) says so instead of guessing.
        do {
            _ = try NotebookRenderer(photo: photo).render(notebook: backdrop(uniqueID()), cell: "b", request: CellRenderRequest(width: 64))
            Issue.record("rendered an uploaded background without any uploads")
        } catch let error as EffectError {
            #expect(error.description.contains("uploads folder"))
        }
    }

    /// The notebook keeps the reference as a plain string, so a shared notebook reopens on the same picture.
    @Test func referenceRoundTripsThroughTheNotebookJSON() throws {
        let id = uniqueID()
        let data = try JSONEncoder().encode(backdrop(id))
        let decoded = try JSONDecoder().decode(Notebook.self, from: data)
        #expect(decoded.cell("b")?.params?["backgroundUpload"] == .choice(id))
    }
}
