import DepthbookCodecs
import DepthbookEngine
import DepthbookSync
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// The learned person matte (MODNet) fused with depth, against Apple's portrait matte as ground truth: on the
/// shared photos that carry one, the matte is hidden from the pipeline and `photo.subject` is made from the
/// network's matte and the depth map. Runs the real network; under CI missing weights fail these tests.
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct PersonMatteTests {
    typealias S = EffectTestSupport

    static let files = MatteAgreementTests.files
    /// Apple's matte's own width: compared at the ground truth's resolution.
    static let width = MatteAgreementTests.width

    static func matter() throws -> PersonMatter { try PersonMatter(modelsDirectory: ModelFiles.directory) }

    /// The photo as other phones deliver it: the same image and depth, no mattes, then the network's matte.
    static func hidden(_ photo: Photo, _ matter: PersonMatter) throws -> Photo {
        var hidden = photo
        hidden.mattes = []
        return try matter.withPersonMatte(hidden)
    }

    @Test(arguments: files)
    func fusedSubjectMatchesApplesMatte(file: String) throws {
        let matter = try Self.matter()
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let start = Date()
        let hidden = try Self.hidden(photo, matter)
        let seconds = Date().timeIntervalSince(start)
        let learned = try #require(hidden.personMatte)
        let notebook = try MatteAgreementTests.notebook("depth-threshold")
        let truth = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: Self.width)
        let subject = try S.floats(hidden, notebook, "photo.subject", width: Self.width)
        let raw = try S.floats(hidden, notebook, "photo.personMatte", width: Self.width)
        var depthOnly = hidden
        depthOnly.personMatte = nil
        let fromDepth = try S.floats(depthOnly, notebook, "photo.subject", width: Self.width)
        let fused = MatteAgreementTests.iou(subject, truth)
        print("person-matte \(file) matte=\(learned.width)x\(learned.height) seconds=\(String(format: "%.2f", seconds))"
            + " IoU fused=\(String(format: "%.4f", fused)) network=\(String(format: "%.4f", MatteAgreementTests.iou(raw, truth)))"
            + " depth-only=\(String(format: "%.4f", MatteAgreementTests.iou(fromDepth, truth)))")
        #expect(fused >= 0.97, "\(file): the fused subject overlaps Apple's matte by \(fused)")
    }

    /// The photo as other phones and depth apps deliver it: the image as a plain JPEG, its disparity as a
    /// separate grey map (brighter nearer) a quarter of the photo's width, no mattes; then the network's matte.
    static func delivered(_ photo: Photo, _ matter: PersonMatter) throws -> Photo {
        let depth = try #require(photo.depth)
        let map = depth.map
        let width = photo.width / 4, height = photo.height / 4
        var near = [Float](repeating: .nan, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let v = map.samples[min(map.height - 1, y * map.height / height) * map.width + min(map.width - 1, x * map.width / width)]
                near[y * width + x] = depth.kind == .depth ? (v > 0 ? 1 / v : .nan) : v
            }
        }
        let valid = near.filter(\.isFinite)
        let lo = try #require(valid.min()), hi = try #require(valid.max())
        let grey = near.map { UInt8($0.isFinite ? ((($0 - lo) / max(hi - lo, 1e-6)) * 255).rounded() : 0) }
        let png = try PNGCodec.encode(RGBImage8(width: width, height: height, channels: 1, samples: grey))
        let jpeg = try JPEGEncoder.encode(photo.image, quality: 92)
        return try matter.withPersonMatte(try PhotoReader.read(data: jpeg, depthMapData: png, polarity: .brighterIsNearer))
    }

    /// As the issue measured it: delivered the way other phones do, depth alone gave IoU 0.55–0.81.
    @Test(arguments: files)
    func fusedSubjectMatchesApplesMatteFromAGreyDepthMap(file: String) throws {
        let matter = try Self.matter()
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let delivered = try Self.delivered(photo, matter)
        #expect(delivered.mattes.isEmpty && delivered.personMatte != nil)
        let notebook = try MatteAgreementTests.notebook("depth-threshold")
        let truth = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: Self.width)
        let subject = try S.floats(delivered, notebook, "photo.subject", width: Self.width)
        var depthOnly = delivered
        depthOnly.personMatte = nil
        let fromDepth = try S.floats(depthOnly, notebook, "photo.subject", width: Self.width)
        let fused = MatteAgreementTests.iou(subject, truth)
        print("person-matte-grey-depth \(file) IoU fused=\(String(format: "%.4f", fused))"
            + " depth-only=\(String(format: "%.4f", MatteAgreementTests.iou(fromDepth, truth)))")
        #expect(fused >= 0.97, "\(file): the fused subject overlaps Apple's matte by \(fused)")
    }

    /// The fusion keeps only the matte's regions depth puts in front: a second, far region is dropped, and the
    /// near one keeps its soft edge.
    @Test func depthChoosesTheRegions() {
        // Two blobs in an 8 × 4 matte: columns 0–2 (near in depth), columns 5–7 (far); a soft pixel beside each.
        var matte = FloatPlane(width: 8, height: 4, channels: 1, repeating: 0)
        for y in 0..<4 {
            for x in [0, 1, 2, 5, 6, 7] { matte.samples[y * 8 + x] = 0.9 }
            matte.samples[y * 8 + 3] = 0.3
        }
        // Depth's region at half the matte's resolution: the left half is the subject.
        let region = FloatPlane(width: 4, height: 2, channels: 1, samples: [1, 1, 0, 0, 1, 1, 0, 0])
        let fused = SubjectFusion.fuse(matte: matte, region: region)
        let row = Array(fused?.prefix(8) ?? [])
        #expect(row == [0.9, 0.9, 0.9, 0.3, 0, 0, 0, 0])
        // Depth agreeing with nothing: no fusion (the effects fall back to depth alone).
        #expect(SubjectFusion.fuse(matte: matte, region: FloatPlane(width: 4, height: 2, channels: 1, repeating: 0)) == nil)
    }

    /// Mattes asked for at once, from several threads and two handles, are the ones asked for one at a time: the
    /// shim runs every OpenCV call on its one thread, in turn (a thread per matte crashed inside oneTBB).
    @Test func mattesAskedForAtOnceAreTheOnesAskedForInTurn() throws {
        let images = try ["pillow_heif__pug.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"].map {
            try PhotoReader.read(contentsOf: SharedPhotos.path($0)).image
        }
        #expect(images[0].width > images[0].height && images[1].width < images[1].height, "one of each orientation")
        let matters = [try Self.matter(), try Self.matter()]
        let alone = try images.map { try matters[0].matte(of: $0) }
        let together = Locked<[Int: FloatPlane]>([:])
        DispatchQueue.concurrentPerform(iterations: 4) { k in
            if let matte = try? matters[k % 2].matte(of: images[k / 2]) { together.withLock { $0[k] = matte } }
        }
        for k in 0..<4 {
            let matte = try #require(together.withLock { $0[k] }, "matte \(k) failed")
            let reference = alone[k / 2]
            #expect(matte.width == reference.width && matte.height == reference.height)
            let worst = zip(matte.samples, reference.samples).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-5, "matte \(k) differs from its serial one by up to \(worst)")
        }
        #expect(matters[0].inferences + matters[1].inferences == 6)
    }

    /// Missing or corrupt weights: a message that names the file and what to do; the photo's effects still render
    /// from depth without a person matte.
    @Test func missingOrCorruptWeightsSayWhy() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect {
            try PersonMatter(modelsDirectory: empty.path)
        } throws: { error in
            "\(error)".contains(PersonMatter.portraitFile) && "\(error)".contains("install-models.sh")
        }
        // Truncated files: OpenCV's parser refuses them, and the message says which directory.
        for name in [PersonMatter.portraitFile, PersonMatter.landscapeFile] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: ModelFiles.directory + "/" + name)).prefix(100_000)
            try bytes.write(to: empty.appendingPathComponent(name))
        }
        #expect {
            try PersonMatter(modelsDirectory: empty.path)
        } throws: { error in
            "\(error)".contains("cannot load the person matte network from \(empty.path)")
        }
        // Without the matte, the subject still renders from depth.
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("spite-lensblur-extractor__table.jpg"))
        #expect(photo.personMatte == nil)
        let notebook = try MatteAgreementTests.notebook("depth-threshold")
        let subject = try S.floats(photo, notebook, "photo.subject", width: 320)
        #expect(subject.samples.contains { $0 > 0.5 } && subject.samples.contains { $0 < 0.5 })
        #expect(throws: EffectError.missingPlane("photo.personMatte")) {
            try S.floats(photo, notebook, "photo.personMatte", width: 320)
        }
    }
}
