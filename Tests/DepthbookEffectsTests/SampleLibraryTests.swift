import DepthbookEngine
import Testing
@testable import DepthbookEffects

/// The bundled samples: layout like a phone's capture, and ground truth that holds exactly.
@Suite(.timeLimit(.minutes(30)))
struct SampleLibraryTests {
    /// Small renders keep the suite fast; every property checked here is size-independent.
    static let testWidth = 192

    @Test func listsThreeSamplesWithDistinctIDs() {
        let ids = SampleLibrary.all.map(\.id)
        #expect(ids == ["portrait", "portrait-outdoor", "still-life"])
        #expect(SampleLibrary.all.allSatisfy { $0.width % 4 == 0 && $0.height % 4 == 0 })
    }

    @Test(arguments: ["portrait", "portrait-outdoor", "still-life"])
    func planesHavePhoneLayout(id: String) throws {
        let photo = try SampleLibrary.photo(id: id, width: Self.testWidth)
        let info = try #require(SampleLibrary.all.first { $0.id == id })
        #expect(photo.width == Self.testWidth)
        #expect(photo.height == Self.testWidth * info.height / info.width)
        let depth = try #require(photo.depth)
        #expect(depth.kind == .disparity)
        #expect(depth.map.width == photo.width / 4 && depth.map.height == photo.height / 4)
        for matte in photo.mattes {
            #expect(matte.plane.width == photo.width / 2 && matte.plane.height == photo.height / 2)
            #expect(matte.plane.samples.allSatisfy { $0 >= 0 && $0 <= 1 })
        }
        #expect(info.planes.filter { $0 != "photo.image" && $0 != "photo.disparity" && $0 != "photo.depth" }
            == photo.mattes.map { "photo.\($0.kind.rawValue)" })
        let calibration = try #require(depth.calibration)
        #expect(calibration.cx == Double(photo.width) / 2 && calibration.cy == Double(photo.height) / 2)
        #expect(calibration.referenceWidth == Double(photo.width))
    }

    @Test func renderingIsDeterministic() throws {
        let a = try SampleLibrary.photo(id: "portrait", width: 96)
        let b = try SampleLibrary.photo(id: "portrait", width: 96)
        #expect(a.image == b.image)
        #expect(a.mattes == b.mattes)
        #expect(a.depth?.map.samples.map(\.bitPattern) == b.depth?.map.samples.map(\.bitPattern))
    }

    @Test func whichMattesEachSampleCarries() throws {
        let portrait = try SampleLibrary.photo(id: "portrait", width: 96)
        #expect(portrait.mattes.map(\.kind) == [.portraitEffectsMatte, .skin, .hair, .teeth, .glasses])
        #expect(portrait.depth?.accuracy == .absolute)
        let outdoor = try SampleLibrary.photo(id: "portrait-outdoor", width: 96)
        #expect(outdoor.matte(.glasses) == nil)
        #expect(outdoor.matte(.sky) != nil)
        #expect(outdoor.depth?.accuracy == .relative)
        let still = try SampleLibrary.photo(id: "still-life", width: 96)
        #expect(still.mattes.isEmpty && still.faces.isEmpty)
        #expect(still.width > still.height)
    }

    /// The disparity under the face centre is the known subject depth, in the sample's own units.
    @Test(arguments: ["portrait", "portrait-outdoor"])
    func disparityAtFaceIsSubjectDepth(id: String) throws {
        let photo = try SampleLibrary.photo(id: id, width: Self.testWidth)
        let truth = try SampleLibrary.truth(id: id)
        let subject = try #require(truth.subjectDepth)
        let center = try #require(truth.faceCenter)
        let map = try #require(photo.depth).map
        let x = min(map.width - 1, Int(center.x * Double(map.width)))
        let y = min(map.height - 1, Int(center.y * Double(map.height)))
        let depth = truth.disparityScale / Double(map[x, y, 0])
        // Within a depth pixel of the centre the ellipsoidal face recedes by well under a centimetre.
        #expect(abs(depth - subject) < 0.01, "depth \(depth) at the face, expected \(subject)")
        // Nothing in the scene is nearer than the face's front.
        let maxDisparity = try #require(map.validRange()).upperBound
        #expect(Double(maxDisparity) <= truth.disparityScale / subject * 1.0001)
        // The far wall or sky bounds the disparity from below.
        #expect(Double(try #require(map.validRange()).lowerBound) >= truth.disparityScale / truth.backgroundDepth * 0.9999)
    }

    @Test func faceRegionSurroundsTheFaceCentre() throws {
        let photo = try SampleLibrary.photo(id: "portrait", width: Self.testWidth)
        let truth = try SampleLibrary.truth(id: "portrait")
        let face = try #require(photo.faces.first)
        let center = try #require(truth.faceCenter)
        let cx = center.x * Double(photo.width), cy = center.y * Double(photo.height)
        #expect(face.type == "Face")
        #expect(face.x < cx && cx < face.x + face.width && face.y < cy && cy < face.y + face.height)
        // The centre pixel of the portrait matte under the face is fully the person.
        let pem = try #require(photo.matte(.portraitEffectsMatte)).plane
        #expect(pem[Int(cx / 2), Int(cy / 2), 0] == 1)
    }

    /// Semantic mattes are parts of the person; the sky is not.
    @Test func semanticMattesNestInsideThePortraitMatte() throws {
        let photo = try SampleLibrary.photo(id: "portrait", width: Self.testWidth)
        let pem = try #require(photo.matte(.portraitEffectsMatte)).plane.samples
        for kind in [MatteKind.skin, .hair, .teeth, .glasses] {
            let m = try #require(photo.matte(kind)).plane.samples
            #expect(zip(m, pem).allSatisfy { $0 <= $1 + 1e-6 }, "\(kind) spills outside the person")
            #expect(m.contains { $0 > 0.99 }, "\(kind) matte is empty")
        }
        // Edges are soft: some matte values lie strictly between 0 and 1.
        #expect(pem.contains { $0 > 0.05 && $0 < 0.95 })
        let outdoor = try SampleLibrary.photo(id: "portrait-outdoor", width: Self.testWidth)
        let sky = try #require(outdoor.matte(.sky)).plane.samples
        let person = try #require(outdoor.matte(.portraitEffectsMatte)).plane.samples
        #expect(zip(sky, person).allSatisfy { $0 + $1 <= 1 + 1e-6 })
    }

    /// The person is nearer than everything the matte leaves out (nearest-neighbour matte lookup).
    @Test func personIsInFrontOfTheBackground() throws {
        let photo = try SampleLibrary.photo(id: "portrait", width: Self.testWidth)
        let map = try #require(photo.depth).map
        let pem = try #require(photo.matte(.portraitEffectsMatte)).plane
        var person = [Float](), rest = [Float]()
        for y in 0..<map.height {
            for x in 0..<map.width where !map[x, y, 0].isNaN {
                // The depth sample sits at the shared corner of these four matte pixels.
                let around = [pem[2 * x, 2 * y, 0], pem[2 * x + 1, 2 * y, 0], pem[2 * x, 2 * y + 1, 0], pem[2 * x + 1, 2 * y + 1, 0]]
                if around.allSatisfy({ $0 == 1 }) { person.append(map[x, y, 0]) }
                if around.allSatisfy({ $0 == 0 }) { rest.append(map[x, y, 0]) }
            }
        }
        #expect(try #require(person.min()) > 1 / 0.95)
        #expect(try #require(rest.max()) < 1 / 1.05)
    }

    @Test(arguments: ["portrait", "portrait-outdoor", "still-life"])
    func depthHasAFewHoles(id: String) throws {
        let map = try #require(try SampleLibrary.photo(id: id, width: Self.testWidth).depth).map
        #expect(map.holeCount > 0)
        #expect(map.holeCount < map.pixelCount / 20)
    }

    @Test func propDepthsAreOrderedAsDescribed() throws {
        let truth = try SampleLibrary.truth(id: "portrait")
        func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }
        #expect(close(truth.subjectDepth, 0.7))
        #expect(close(truth.propDepths["ball"], 1.1))
        #expect(close(truth.propDepths["books"], 1.8))
        #expect(close(truth.propDepths["vase"], 2.5))
        #expect(truth.backgroundDepth == 3.5)
        let still = try SampleLibrary.truth(id: "still-life")
        #expect(still.subjectDepth == nil && still.faceCenter == nil)
        #expect(close(still.propDepths["orange"], 0.6))
    }

    @Test func unknownSampleIsATypedError() {
        #expect(throws: SampleError.unknownSample("nope")) { try SampleLibrary.photo(id: "nope") }
        #expect(throws: SampleError.badSize(4)) { try SampleLibrary.photo(id: "portrait", width: 4) }
    }

    @Test func backgroundsAreDistinctAndSized() throws {
        #expect(SampleLibrary.backgrounds.count == 3)
        var images = [RGBImage8]()
        for b in SampleLibrary.backgrounds {
            let image = try SampleLibrary.background(id: b.id, width: 64, height: 48)
            #expect(image.width == 64 && image.height == 48 && image.channels == 3)
            #expect(Set(image.samples).count > 8, "\(b.id) is flat")
            images.append(image)
        }
        #expect(images[0] != images[1] && images[1] != images[2])
        #expect(throws: SampleError.unknownBackground("moon")) { try SampleLibrary.background(id: "moon", width: 8, height: 8) }
    }
}
