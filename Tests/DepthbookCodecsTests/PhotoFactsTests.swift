import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

@testable import DepthbookCodecs

/// The JSON `depthbook inspect --json` prints: the field names, absent parts omitted.
@Suite(.timeLimit(.minutes(30)))
struct PhotoFactsTests {
    @Test func fieldsAndOmissions() throws {
        let portrait = RoundTripTests.syntheticPortrait()
        let json = try PhotoFacts(portrait).json()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["width", "height", "orientation", "colorSpace", "depth", "mattes", "calibration", "faces"])
        let depth = try #require(object["depth"] as? [String: Any])
        #expect(Set(depth.keys) == ["kind", "width", "height", "min", "max", "accuracy", "filtered", "holes"])
        #expect(depth["kind"] as? String == "disparity" && depth["holes"] as? Int == 48 && depth["accuracy"] as? String == "absolute")
        #expect(depth["min"] as? Double == 0.4 && depth["max"] as? Double == 2)
        let mattes = try #require(object["mattes"] as? [[String: Any]])
        #expect(mattes.map { $0["kind"] as? String } == ["portraitEffectsMatte", "skin", "hair", "teeth", "glasses", "sky"])
        let calibration = try #require(object["calibration"] as? [String: Any])
        #expect(Set(calibration.keys) == ["referenceWidth", "referenceHeight", "fx", "fy", "cx", "cy", "lensDistortion", "lensDistortionPercent"])
        #expect(calibration["cx"] as? Double == 47.5 && calibration["lensDistortion"] as? Bool == true)
        let faces = try #require(object["faces"] as? [[String: Any]])
        #expect(Set(faces[0].keys) == ["x", "y", "w", "h"])

        var separate = portrait
        separate.depth?.greyPolarity = GreyPolarity(brighterIsNearer: false, detected: true)
        let withPolarity = try JSONSerialization.jsonObject(with: Data(try PhotoFacts(separate).json().utf8)) as? [String: Any]
        let separateDepth = try #require(withPolarity?["depth"] as? [String: Any])
        #expect(separateDepth["polarity"] as? String == "brighterFarther" && separateDepth["polarityDetected"] as? Bool == true)

        let imageOnly = try JSONSerialization.jsonObject(with: Data(try PhotoFacts(Photo(image: portrait.image)).json().utf8)) as? [String: Any]
        #expect(Set(imageOnly?.keys ?? [:].keys) == ["width", "height", "orientation", "colorSpace"])
    }

    @Test(.enabled(if: SharedPhotos.available))
    func realHEICFacts() throws {
        let facts = PhotoFacts(try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic")))
        #expect(facts.width == 2316 && facts.height == 3088 && facts.orientation == 1)
        #expect(facts.depth?.width == 480 && facts.depth?.height == 640 && facts.depth?.accuracy == "absolute")
        #expect(facts.mattes?.count == 5)
        #expect(facts.calibration?.referenceWidth == 2316)
        #expect(facts.faces == nil)
    }
}
