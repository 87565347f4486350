import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookCodecs

/// Faces found in the picture for photos whose files name none. The frontal face is scikit-image's
/// `astronaut` (a NASA portrait in the public domain, shipped with the library as test data), written out by
/// Python; where its face is was read off the picture by hand: eyes at (200, 108) and (245, 108), mouth at
/// (222, 147).
@Suite(.timeLimit(.minutes(30)))
struct FaceDetectionTests {
    static func astronaut() throws -> String? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("astronaut-\(UUID().uuidString).png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys, skimage.data, PIL.Image; PIL.Image.fromarray(skimage.data.astronaut()).save(sys.argv[1])", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            // Under CI the test tools are part of the set-up (scripts/install-deps.sh): their absence fails.
            if RunEnvironment.isCI { throw PythonReference.Failure.missingOutput("scikit-image's astronaut") }
            return nil
        }
        return path
    }

    @Test func aFrontalFaceIsFoundWhereItIs() throws {
        guard let path = try Self.astronaut() else { return }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let photo = try PhotoReader.read(contentsOf: path)
        #expect(photo.faces.count == 1, "\(photo.faces)")
        let face = try #require(photo.faces.first)
        #expect(face.detected && face.type == "Face")
        for (x, y) in [(200.0, 108.0), (245.0, 108.0), (222.0, 147.0)] {
            #expect(face.x <= x && x <= face.x + face.width && face.y <= y && y <= face.y + face.height, "(\(x), \(y)) outside \(face)")
        }
        #expect((60...140).contains(face.width) && (60...140).contains(face.height), "\(face)")
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(try PhotoFacts(photo).json().utf8)) as? [String: Any])
        let listed = try #require(facts["faces"] as? [[String: Any]])
        #expect(listed.first?["detected"] as? Bool == true)
    }

    /// Faces a file names are kept as they are, and nothing is invented where there is no face (the pug).
    @Test(.enabled(if: SharedPhotos.available, "needs ../shared/photos"))
    func fileRegionsAreKeptAndADogIsNoFace() throws {
        let selfie = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        #expect(!selfie.faces.isEmpty && selfie.faces.allSatisfy { !$0.detected })
        let pug = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        #expect(pug.faces.isEmpty, "\(pug.faces)")
    }

    /// The grey copy the detector sees is an area average: a 2×2 block of one colour stays that colour's luma.
    @Test func theGreyCopyAveragesBoxes() {
        var samples = [UInt8](repeating: 0, count: 4 * 2 * 3)
        for i in 0..<4 { samples[i * 3] = 200 }                 // top row: red 200 → luma 0.299·200 = 59.8
        for i in 4..<8 { samples[i * 3 + 1] = 100 }             // bottom row: green 100 → 58.7
        let image = RGBImage8(width: 4, height: 2, channels: 3, samples: samples)
        #expect(FaceDetector.greyBoxDownscaled(image, width: 2, height: 1) == [59, 59])  // (59.8 + 58.7) / 2 = 59.25
        #expect(FaceDetector.greyBoxDownscaled(image, width: 4, height: 2) == [59, 59, 59, 59, 58, 58, 58, 58])
    }
}
