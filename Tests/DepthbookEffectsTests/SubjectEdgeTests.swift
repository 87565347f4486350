import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// Masks cut from depth take the learned subject's edge (issue 36, item 2): on the shared portraits delivered as
/// other phones and depth apps deliver them (a plain JPEG, its disparity as a grey map a quarter of the width, no
/// mattes; `PersonMatteTests.delivered`), the depth-threshold notebook's `resized` and `feathered` masks against
/// Apple's matte of the original file near its edge; and Marching on the pug carries the dog, not its bed.
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct SubjectEdgeTests {
    typealias S = EffectTestSupport

    static let width = MatteAgreementTests.width

    /// Mean |mask − matte| within 2 % of the width of the matte's edge (issue 36's measure), `resized` against the
    /// matte, `feathered` against the matte feathered by the same step. Printed beside the same masks from depth
    /// alone (the person matte taken away).
    @Test(arguments: MatteAgreementTests.files)
    func depthThresholdMasksFollowTheMatte(file: String) throws {
        let original = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let delivered = try PersonMatteTests.delivered(original, try PersonMatter(modelsDirectory: ModelFiles.directory))
        var notebook = try MatteAgreementTests.notebook("depth-threshold")
        let feather = try #require(notebook.cells.first { $0.id == "feathered" })
        notebook.cells.append(Cell(id: "matte-feathered", kind: .step, effect: "feather",
                                   inputs: ["mask": "photo.portraitEffectsMatte"], params: feather.params))
        let matte = try S.floats(original, notebook, "photo.portraitEffectsMatte", width: Self.width)
        let featheredMatte = try S.floats(original, notebook, "matte-feathered", width: Self.width)
        let band = 0.02 * Double(Self.width)
        func errors(_ photo: Photo) throws -> (resized: Double, feathered: Double) {
            let resized = try S.floats(photo, notebook, "resized", width: Self.width)
            let feathered = try S.floats(photo, notebook, "feathered", width: Self.width)
            return (MatteAgreementTests.edgeError(resized, matte: matte, band: band),
                    MatteAgreementTests.edgeError(feathered, matte: matte, band: band, reference: featheredMatte))
        }
        let fused = try errors(delivered)
        var depthOnly = delivered
        depthOnly.personMatte = nil
        let before = try errors(depthOnly)
        // The network's own matte beside them, and how much of the band's error lies where Apple's matte keeps what
        // the network calls background (on the HEIC, a wing of the chair behind the head, matted at 0.3–0.7).
        let network = try S.floats(delivered, notebook, "photo.personMatte", width: Self.width)
        let resized = try S.floats(delivered, notebook, "resized", width: Self.width)
        let networkAlone = MatteAgreementTests.edgeError(network, matte: matte, band: band)
        let disputed = MatteAgreementTests.edgeError(resized, matte: matte, band: band, only: { i in matte.samples[i] > 0.05 && network.samples[i] < 0.05 })
        print("subject-edge \(file) resized=\(String(format: "%.4f", fused.resized)) (depth alone \(String(format: "%.4f", before.resized)),"
            + " network alone \(String(format: "%.4f", networkAlone)), of it where Apple's matte keeps the network's background \(String(format: "%.4f", disputed)))"
            + " feathered=\(String(format: "%.4f", fused.feathered)) (depth alone \(String(format: "%.4f", before.feathered)))")
        #expect(fused.feathered <= 0.08, "\(file): the feathered mask is \(fused.feathered) off the feathered matte near its edge")
        #expect(fused.resized < before.resized && fused.feathered < before.feathered, "\(file): no better than depth alone")
        // Issue 36's 0.11 holds on the JPEG. On the HEIC Apple's matte takes in a wing of the chair that the network
        // (rightly) leaves out: the network's own matte scores 0.134 there, so no fit of it can reach 0.11.
        withKnownIssue("on the HEIC Apple's matte keeps part of the chair, which the network leaves out (issue 36)") {
            #expect(fused.resized <= 0.11, "\(file): the resized mask is \(fused.resized) off the matte near its edge")
        } when: { file.hasSuffix(".heic") }
    }

    /// Big Head on the TrueDepth selfie delivered without Apple's matte (issue 36's check: it scales the person, not
    /// the chair behind): Apple's matte takes in a wing of the chair behind the head at 0.3–0.7, which the network
    /// leaves out. The region Big Head scales holds none of that wing, and made smaller (the notebook's `smaller`),
    /// the person leaves the wing as it was away from its own edge (a scaled chair would have shrunk with it). (Depth
    /// alone leaves the wing out too on this photo, printed beside: the chair is farther than the head.)
    @Test func bigHeadScalesThePersonNotTheChair() throws {
        let file = "fidmaa-portrait-analyser__heic_depth_data.heic"
        let original = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let delivered = try PersonMatteTests.delivered(original, try PersonMatter(modelsDirectory: ModelFiles.directory))
        let notebook = try MatteAgreementTests.notebook("big-head")
        let width = 600
        let apple = try S.floats(original, notebook, "matte", width: width)
        let network = try S.floats(delivered, notebook, "photo.personMatte", width: width)
        let scaled = try S.floats(delivered, notebook, "matte", width: width)
        let smaller = try S.floats(delivered, notebook, "smaller", width: width)
        let photo = try S.floats(delivered, notebook, "photo", width: width)
        let h = apple.region.height, n = width * h
        let chair = (0..<n).filter { apple.samples[$0] > 0.2 && apple.samples[$0] < 0.9 && network.samples[$0] < 0.05 }
        let person = (0..<n).filter { apple.samples[$0] > 0.95 && network.samples[$0] > 0.95 }
        func mean(_ plane: PixelBuffer, over pixels: [Int]) -> Double {
            pixels.map { Double(plane.samples[$0]) }.reduce(0, +) / Double(max(1, pixels.count))
        }
        let onChair = mean(scaled, over: chair), onPerson = mean(scaled, over: person)
        // Beside it, the same region from depth alone.
        var depthOnly = delivered
        depthOnly.personMatte = nil
        let fromDepth = try S.floats(depthOnly, notebook, "matte", width: width)
        let depthOnChair = mean(fromDepth, over: chair)
        // The wing away from the person's edge (6 px: the plate's fill along it, the shrunk person's soft edge).
        let drawn = SoftEdgeGlowTests.dilated((0..<n).map { scaled.samples[$0] >= 0.02 }, width: width, height: h, radius: 6)
        let untouched = chair.filter { !drawn[$0] }
        var moved = 0.0
        for i in untouched { for c in 0..<3 { moved = max(moved, abs(Double(smaller.samples[3 * i + c]) - Double(photo.samples[3 * i + c]))) } }
        print("big-head-chair \(file) wing pixels=\(chair.count) (of \(n)) scaled there=\(String(format: "%.4f", onChair))"
            + " (depth alone \(String(format: "%.4f", depthOnChair))) person=\(String(format: "%.4f", onPerson)) wing away from the person=\(untouched.count)"
            + " largest change there=\(String(format: "%.2f", moved * 255))/255")
        #expect(chair.count > n / 200, "Apple's matte takes in the chair's wing (the case this test is about)")
        #expect(onChair <= 0.05, "Big Head scales \(onChair) of the chair's wing")
        #expect(onPerson >= 0.95, "Big Head scales \(onPerson) of the person")
        #expect(untouched.count > chair.count / 4 && moved <= 2.0 / 255, "the wing outside the person changed by \(moved * 255)/255")
    }

    /// Marching on the pug (rear camera, no portrait matte): what is copied is the dog, and the bed, which depth
    /// alone takes in with it, stays where it is: outside the copies' coverage the picture is unchanged.
    @Test func marchingMovesTheDogNotTheBed() throws {
        let plain = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let photo = try PersonMatter(modelsDirectory: ModelFiles.directory).withPersonMatte(plain)
        #expect(photo.personMatte != nil && photo.depth?.estimate == nil)
        var notebook = try MatteAgreementTests.notebook("marching")
        let few = try #require(notebook.cells.first { $0.id == "few" })
        notebook.cells.append(Cell(id: "few-coverage", kind: .step, effect: "marchingCoverage", inputs: few.inputs, params: few.params))
        let width = 504
        let carried = try S.floats(photo, notebook, "matte", width: width)
        let fromDepth = try S.floats(plain, notebook, "matte", width: width)
        // The bed: what depth alone takes for the subject and the fused subject leaves out (its fringe too).
        let outsideDog = SoftEdgeGlowTests.dilated(carried.samples.map { $0 >= 0.02 }, width: width, height: carried.height, radius: 3).map { !$0 }
        let bed = zip(fromDepth.samples, outsideDog).map { $0 >= 0.5 && $1 }
        let bedCount = bed.filter { $0 }.count
        let carriedOnBed = zip(carried.samples, bed).filter(\.1).map { Double($0.0) }.reduce(0, +) / Double(max(1, bedCount))
        let result = try S.floats(photo, notebook, "few", width: width)
        let original = try S.floats(photo, notebook, "photo", width: width)
        let coverage = try S.floats(photo, notebook, "few-coverage", width: width)
        var moved = 0.0, still = 0
        for i in 0..<bed.count where bed[i] && coverage.samples[i] < 2 / 255 {
            still += 1
            for c in 0..<3 { moved = max(moved, abs(Double(result.samples[3 * i + c]) - Double(original.samples[3 * i + c]))) }
        }
        print("marching-pug bed pixels=\(bedCount) (of \(bed.count)) carried=\(String(format: "%.4f", carriedOnBed))"
            + " uncovered=\(still) largest change there=\(String(format: "%.4f", moved * 255))/255")
        #expect(bedCount > bed.count / 50, "depth alone takes in the bed (the case this test is about)")
        #expect(carriedOnBed <= 2.0 / 255, "the marching matte carries \(carriedOnBed) of the bed")
        #expect(still > bedCount / 4 && moved <= 2.0 / 255, "the bed outside the copies changed by \(moved * 255)/255")
    }
}
