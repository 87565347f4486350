import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// `depthbook inspect` run as a process, the way users and scripts call it.
@Suite(.enabled(if: RunEnvironment.isCI || (DepthbookBinary.path != nil && SharedPhotos.isPresent), "needs the built depthbook binary and ../shared/photos"),
       .timeLimit(.minutes(30)))
struct InspectCommandTests {
    static var binary: String? { DepthbookBinary.path }
}

enum DepthbookBinary {
    /// The `depthbook` executable built beside the test bundle.
    static let path: String? = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("depthbook").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()
}

extension InspectCommandTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(binary))
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test func jsonMatchesTheLoadedPhoto() throws {
        let file = SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg")
        let (status, stdout, _) = try Self.run(["inspect", file, "--json"])
        #expect(status == 0)
        let printed = try JSONDecoder().decode(PhotoFacts.self, from: Data(stdout.utf8))
        #expect(printed == PhotoFacts(try PhotoReader.read(contentsOf: file)))
        // One face: the file's second region is the camera's focus area, not a face.
        #expect(printed.faces?.count == 1 && printed.mattes?.first?.kind == "portraitEffectsMatte")
    }

    @Test func separateDepthFile() throws {
        let (status, stdout, _) = try Self.run(["inspect", SharedPhotos.path("depthy__mango-image.jpg"), "--depth",
                                                SharedPhotos.path("depthy__mango-depth.jpg"), "--json"])
        #expect(status == 0)
        let printed = try JSONDecoder().decode(PhotoFacts.self, from: Data(stdout.utf8))
        #expect(printed.depth?.kind == "disparity" && printed.depth?.accuracy == "relative" && printed.depth?.width == 768)
        // depthy's map is brighter where things are farther: detected so unless the command line says otherwise.
        #expect(printed.depth?.polarity == "brighterFarther" && printed.depth?.polarityDetected == true)
        let stated = try Self.run(["inspect", SharedPhotos.path("depthy__mango-image.jpg"), "--depth", SharedPhotos.path("depthy__mango-depth.jpg"),
                                   "--depth-brighter-nearer", "--json"])
        #expect(stated.status == 0)
        let statedFacts = try JSONDecoder().decode(PhotoFacts.self, from: Data(stated.stdout.utf8))
        #expect(statedFacts.depth?.polarity == "brighterNearer" && statedFacts.depth?.polarityDetected == false)
        let text = try Self.run(["inspect", SharedPhotos.path("depthy__mango-image.jpg"), "--depth", SharedPhotos.path("depthy__mango-depth.jpg")])
        #expect(text.stdout.contains("depth map: brighter is farther (detected)"))
    }

    @Test func badInputExitsNonZeroWithTheErrorOnStderr() throws {
        let (status, stdout, stderr) = try Self.run(["inspect", SharedPhotos.path("bad/pillow_heif__heif_corrupted_empty.heic"), "--json"])
        #expect(status != 0)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("The file is empty."))
        let missing = try Self.run(["inspect", "/nonexistent.heic", "--json"])
        #expect(missing.status != 0 && missing.stderr.contains("Cannot read /nonexistent.heic"))
    }
}
