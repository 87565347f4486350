import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// Photos taken without depth (issue 36, item 4): the shared portraits re-encoded as plain JPEGs (no MPF, no XMP,
/// no depth, no mattes) open with a disparity estimated from the learned person matte, and the portrait effects
/// render on them with the subject sharp and the background treated, judged inside and outside Apple's own
/// matte of the original file. Runs the real network.
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct EstimatedDepthTests {
    typealias S = EffectTestSupport

    static let files = MatteAgreementTests.files
    /// Apple's matte's own width: everything compared at the ground truth's resolution.
    static let width = MatteAgreementTests.width

    /// The photo as a plain JPEG: its pixels and nothing else.
    static func plainJPEG(_ photo: Photo) throws -> Photo {
        try PhotoReader.read(data: try JPEGEncoder.encode(photo.image, quality: 92))
    }

    static func notebook(_ name: String) throws -> Notebook { try MatteAgreementTests.notebook(name) }

    /// Pixels well inside (`true`) or well outside Apple's matte: at least `band` pixels from its 0.5 edge.
    static func core(_ matte: PixelBuffer, inside: Bool, band: Int) -> [Bool] {
        let side = matte.samples.map { ($0 >= 0.5) == inside }
        let other = side.map { !$0 }
        let reach = SoftEdgeGlowTests.dilated(other, width: matte.width, height: matte.height, radius: band)
        return zip(side, reach).map { $0 && !$1 }
    }

    /// Mean magnitude of the luma's gradient (forward differences) over `region`: how much fine detail is left.
    static func sharpness(_ image: PixelBuffer, _ region: [Bool]) -> Double {
        let w = image.width, h = image.height, ch = image.channels
        func luma(_ x: Int, _ y: Int) -> Double {
            let i = (y * w + x) * ch
            return ch >= 3 ? 0.2126 * Double(image.samples[i]) + 0.7152 * Double(image.samples[i + 1]) + 0.0722 * Double(image.samples[i + 2])
                : Double(image.samples[i])
        }
        var sum = 0.0, count = 0.0
        for y in 0..<(h - 1) {
            for x in 0..<(w - 1) where region[y * w + x] {
                let l = luma(x, y)
                sum += abs(luma(x + 1, y) - l) + abs(luma(x, y + 1) - l)
                count += 1
            }
        }
        return count > 0 ? sum / count : 0
    }

    /// Mean |a − b| over `region`, all channels, in 0...1 units.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer, _ region: [Bool]) -> Double {
        var sum = 0.0, count = 0.0
        for (i, inside) in region.enumerated() where inside {
            for c in 0..<a.channels { sum += abs(Double(a.samples[i * a.channels + c]) - Double(b.samples[i * b.channels + c])) }
            count += Double(a.channels)
        }
        return count > 0 ? sum / count : 0
    }

    @Test(arguments: files)
    func aPlainJPEGOpensWithEstimatedDepth(file: String) throws {
        let original = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let plain = try Self.plainJPEG(original)
        #expect(plain.depth == nil && plain.mattes.isEmpty)
        // Without the network it is today's photo without depth: the depth effects say so.
        #expect(throws: EffectError.missingPlane("photo.disparity")) {
            try S.floats(plain, try Self.notebook("depth-of-field"), "portrait", width: 64)
        }
        let matter = try PersonMatter(modelsDirectory: ModelFiles.directory)
        let opened = try matter.withPersonMatte(plain)
        let depth = try #require(opened.depth)
        #expect(depth.estimate == .personMatte && depth.kind == .disparity && depth.accuracy == .relative)
        #expect(PhotoFacts(opened).depth?.estimated == DepthEstimate.personMatte.label)
        #expect(matter.inferences == 1, "the matte and the depth come from one run of the network")
        let notebook = try Self.notebook("depth-threshold")
        let truth = try S.floats(original, notebook, "photo.portraitEffectsMatte", width: Self.width)
        let subject = try S.floats(opened, notebook, "photo.subject", width: Self.width)
        let overlap = MatteAgreementTests.iou(subject, truth)
        print("estimated-depth \(file) depth=\(depth.map.width)x\(depth.map.height) subject IoU=\(String(format: "%.4f", overlap))")
        #expect(overlap >= 0.95, "\(file): the subject on estimated depth overlaps Apple's matte by \(overlap)")
    }

    /// Depth of field, Backdrop and matte separation on the plain JPEG: inside Apple's matte (2 % of the width
    /// from its edge) the detail stays; outside it is blurred, darkened or replaced.
    @Test(arguments: files)
    func portraitEffectsKeepTheSubjectAndTreatTheBackground(file: String) throws {
        let original = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let opened = try PersonMatter(modelsDirectory: ModelFiles.directory).withPersonMatte(try Self.plainJPEG(original))
        let truth = try S.floats(original, try Self.notebook("depth-threshold"), "photo.portraitEffectsMatte", width: Self.width)
        let band = Int((0.02 * Double(Self.width)).rounded())
        let inside = Self.core(truth, inside: true, band: band), outside = Self.core(truth, inside: false, band: band)
        let photo = try S.floats(opened, try Self.notebook("depth-of-field"), "photo", width: Self.width)
        let sharpIn = Self.sharpness(photo, inside), sharpOut = Self.sharpness(photo, outside)

        for (name, cell) in [("depth-of-field", "portrait"), ("matte-separation", "recipe")] {
            let result = try S.floats(opened, try Self.notebook(name), cell, width: Self.width)
            let kept = Self.sharpness(result, inside) / sharpIn, left = Self.sharpness(result, outside) / sharpOut
            print("estimated-depth \(file) \(name).\(cell) detail kept inside=\(String(format: "%.3f", kept)) outside=\(String(format: "%.3f", left))")
            #expect(kept >= 0.85, "\(file) \(name): the subject lost detail (\(kept) of it left)")
            #expect(left <= 0.5, "\(file) \(name): the background kept \(left) of its detail")
        }
        let backdrop = try S.floats(opened, try Self.notebook("backdrop"), "space", width: Self.width)
        let changedIn = Self.difference(backdrop, photo, inside), changedOut = Self.difference(backdrop, photo, outside)
        print("estimated-depth \(file) backdrop.space mean change inside=\(String(format: "%.4f", changedIn)) outside=\(String(format: "%.4f", changedOut))")
        #expect(changedIn <= 0.02, "\(file) backdrop: the subject changed by \(changedIn)")
        #expect(changedOut >= 0.15, "\(file) backdrop: the background changed by only \(changedOut)")
    }
}

/// The estimate's shape and what it is not used for, on small made-up planes (no network).
struct EstimatedDisparityTests {
    typealias S = EffectTestSupport

    /// A 40 × 60 matte with a person-like block in the lower middle (columns 14–25, rows 20 to the bottom).
    static func matte() -> FloatPlane {
        var m = FloatPlane(width: 40, height: 60, channels: 1, repeating: 0)
        for y in 20..<60 { for x in 14..<26 { m.samples[y * 40 + x] = 1 } }
        return m
    }

    /// A photo of that size whose only depth is the estimate.
    static func photo() throws -> Photo {
        var pixels = RGBImage8(width: 40, height: 60, channels: 3, repeating: 0)
        for i in 0..<pixels.samples.count { pixels.samples[i] = UInt8((i * 37) % 251) }
        var photo = Photo(image: pixels)
        photo.personMatte = matte()
        photo.depth = try #require(EstimatedDisparity.depth(fromMatte: matte()))
        return photo
    }

    @Test func theSubjectIsNearestAndTheGroundRisesTowardTheBottom() throws {
        let plane = try #require(EstimatedDisparity.plane(fromMatte: Self.matte()))
        let at = { (x: Int, y: Int) in plane.samples[y * 40 + x] }
        #expect(at(20, 40) == EstimatedDisparity.subject)
        let background = plane.samples.enumerated().filter { Self.matte().samples[$0.offset] == 0 }.map(\.element)
        #expect(background.allSatisfy { $0 < 0.8 * EstimatedDisparity.subject })
        // Away from the subject: flat above the horizon, rising below it.
        #expect(abs(at(0, 5) - at(0, 25)) < 0.02)
        #expect(at(0, 59) > at(0, 45) && at(0, 45) > at(0, 31))
        // Just beside the subject nearer than at the frame's edge, at the same row.
        #expect(at(12, 18) > at(0, 18))
        // Nobody in the matte: no estimate.
        #expect(EstimatedDisparity.plane(fromMatte: FloatPlane(width: 40, height: 60, channels: 1, repeating: 0.1)) == nil)
    }

    /// Point cloud and dolly zoom need depth a camera measured: on the estimate they say why, and render nothing.
    @Test func threeDEffectsNeedMeasuredDepth() throws {
        let photo = try Self.photo()
        let notebooks = try S.bundledNotebooks()
        for (name, cell) in [("point-cloud", "front"), ("dolly-zoom", "in")] {
            let notebook = try #require(notebooks.first { $0.name == name })
            #expect {
                try S.floats(photo, notebook, cell, width: 40)
            } throws: { error in
                guard let error = error as? EffectError, error.isUnsupportedByPhoto else { return false }
                print("estimated-depth \(name).\(cell): \(error)")
                return "\(error)".contains("estimated")
            }
        }
        // Depth of field renders.
        let dof = try #require(notebooks.first { $0.name == "depth-of-field" })
        #expect(try S.floats(photo, dof, "portrait", width: 40).width == 40)
    }

    /// An export writes no estimated depth as if a camera had measured it: the file carries none.
    @Test func exportsLeaveTheEstimateOut() throws {
        let photo = try Self.photo()
        let notebook = try #require(try S.bundledNotebooks().first { $0.name == "depth-of-field" })
        let exported = try NotebookRenderer(photo: photo).exportedPhoto(notebook: notebook, cell: "portrait")
        #expect(exported.photo.depth == nil && exported.depthEstimateLeftOut)
        let reread = try PhotoReader.read(data: try PhotoWriter.jpegWithDepth(exported.photo))
        #expect(reread.depth == nil)
    }
}
