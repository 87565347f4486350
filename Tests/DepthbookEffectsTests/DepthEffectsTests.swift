import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// The depth effects on the generated portrait, whose geometry is known: a face near the camera, a far wall.
@Suite(.timeLimit(.minutes(30)))
struct DepthEffectsTests {
    typealias S = EffectTestSupport
    static let width = 128

    static func photo() throws -> Photo { try S.sample("portrait", width: width) }

    /// Renders one step on the photo at its own width.
    static func run(_ effect: String, _ inputs: [String: String], _ params: [String: ParameterValue] = [:]) throws -> PixelBuffer {
        try S.floats(try photo(), S.notebook([S.step("x", effect, inputs, params)]), "x", width: width)
    }

    static func image() throws -> PixelBuffer {
        try S.floats(try photo(), S.notebook([]), "photo", width: width)
    }

    /// The sample's face centre and the top-left corner (wall) as pixel indices.
    static func landmarks() throws -> (face: Int, wall: Int) {
        let truth = try SampleLibrary.truth(id: "portrait")
        let centre = try #require(truth.faceCenter)
        let p = try photo()
        let height = Int((Double(width) * Double(p.height) / Double(p.width)).rounded())
        let fx = Int(centre.x * Double(width)), fy = Int(centre.y * Double(height))
        return (fy * width + fx, 3 * width + 3)
    }

    @Test func tappingTheFaceMakesItForegroundAndTheWallBackground() throws {
        let truth = try SampleLibrary.truth(id: "portrait")
        let face = try #require(truth.faceCenter)
        let mask = try Self.run("tapBlendMask", ["disparity": "photo.disparity"],
                                ["point": .point(x: face.x, y: face.y), "width": .number(0.1)])
        let (f, w) = try Self.landmarks()
        #expect(mask.samples[f] > 0.99)
        #expect(mask.samples[w] < 0.01)
        #expect(mask.samples.allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    @Test func backgroundFilterLeavesTheForegroundAlone() throws {
        let face = try #require(try SampleLibrary.truth(id: "portrait").faceCenter)
        let out = try Self.run("backgroundEffect", ["image": "photo", "disparity": "photo.disparity"],
                               ["point": .point(x: face.x, y: face.y), "width": .number(0.05), "filter": .choice("desaturate")])
        let image = try Self.image()
        let (f, w) = try Self.landmarks()
        // The face is curved: its centre sits just below the tapped area's maximum, at the top of the ramp
        // (mask ≈ 0.99), so it keeps its colour to within a few thousandths.
        for c in 0..<3 { #expect(abs(out.samples[f * 3 + c] - image.samples[f * 3 + c]) < 0.005) }
        #expect(abs(out.samples[w * 3] - out.samples[w * 3 + 1]) < 1e-4 && abs(out.samples[w * 3 + 1] - out.samples[w * 3 + 2]) < 1e-4)
        for filter in ["fog", "hexagonalPixellate", "motionBlur"] {
            let other = try Self.run("backgroundEffect", ["image": "photo", "disparity": "photo.disparity"],
                                     ["point": .point(x: face.x, y: face.y), "width": .number(0.05), "filter": .choice(filter)])
            for c in 0..<3 { #expect(abs(other.samples[f * 3 + c] - image.samples[f * 3 + c]) < 0.005, "\(filter)") }
        }
    }

    /// The 2017 capture talk's look: Noir behind, Fade in front. Fade by hand: saturation 0.7 about Rec.601
    /// luma, then 0…1 mapped to 0.1…0.9; the wall is grey.
    @Test func noirBackgroundBehindAFadedForeground() throws {
        let face = try #require(try SampleLibrary.truth(id: "portrait").faceCenter)
        let out = try Self.run("backgroundEffect", ["image": "photo", "disparity": "photo.disparity"],
                               ["point": .point(x: face.x, y: face.y), "width": .number(0.05), "filter": .choice("noir"),
                                "foreground": .choice("fade")])
        let image = try Self.image()
        let (f, w) = try Self.landmarks()
        let rgb = (0..<3).map { image.samples[f * 3 + $0] }
        let luma = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
        for c in 0..<3 {
            let faded = 0.1 + 0.8 * (0.7 * rgb[c] + 0.3 * luma)
            #expect(abs(out.samples[f * 3 + c] - faded) < 0.006)
        }
        #expect(abs(out.samples[w * 3] - out.samples[w * 3 + 1]) < 1e-4 && abs(out.samples[w * 3 + 1] - out.samples[w * 3 + 2]) < 1e-4)
    }

    /// Raw depth to filtered: the sample's holes are filled, and every valid value stays as it was.
    @Test func holeFillFillsHolesAndKeepsValidDepth() throws {
        let raw = try S.floats(try Self.photo(), S.notebook([]), "photo.depth", width: Self.width)
        let holes = raw.samples.filter(\.isNaN).count
        #expect(holes > 0, "the sample has holes to fill")
        let filled = try Self.run("holeFill", ["depth": "photo.depth"])
        #expect(filled.samples.count == raw.samples.count)
        #expect(filled.samples.allSatisfy { !$0.isNaN })
        #expect(zip(raw.samples, filled.samples).allSatisfy { $0.isNaN || $0 == $1 })
    }

    @Test func darkeningKeepsThePowerZeroPhotoAndDarkensTheWallMost() throws {
        let image = try Self.image()
        let none = try Self.run("darkenByDisparity", ["image": "photo", "disparity": "photo.disparity"], ["power": .number(0)])
        #expect(none.samples == image.samples)
        let dark = try Self.run("darkenByDisparity", ["image": "photo", "disparity": "photo.disparity"], ["power": .number(3)])
        #expect(zip(dark.samples, image.samples).allSatisfy { $0 <= $1 + 1e-6 })
        let (f, w) = try Self.landmarks()
        let faceRatio = dark.samples[f * 3 + 1] / image.samples[f * 3 + 1], wallRatio = dark.samples[w * 3 + 1] / max(1e-6, image.samples[w * 3 + 1])
        #expect(faceRatio > 4 * wallRatio)
    }

    @Test func depthOfFieldBlursTheWallAndKeepsTheFace() throws {
        let image = try Self.image()
        let inputs = ["image": "photo", "disparity": "photo.disparity", "matte": "photo.portraitEffectsMatte"]
        let everything = try Self.run("depthOfField", inputs, ["focus": .choice("everything"), "aperture": .number(22)])
        #expect(everything.samples == image.samples)
        let blurred = try Self.run("depthOfField", inputs, ["aperture": .number(1.4), "maxBlur": .number(9.4)])
        let (f, _) = try Self.landmarks()
        // Local contrast: the wall's texture is averaged away, the face (focused via its XMP region) is not.
        func roughness(_ b: PixelBuffer, _ centre: Int) -> Float {
            var s: Float = 0
            for d in [-2, -1, 1, 2] { s += abs(b.samples[(centre + d) * 3 + 1] - b.samples[(centre + d + 1) * 3 + 1]) }
            return s
        }
        let wall = 6 * Self.width + 10
        #expect(roughness(blurred, wall) < 0.5 * roughness(image, wall) + 1e-4)
        #expect(abs(blurred.samples[f * 3 + 1] - image.samples[f * 3 + 1]) < 0.05)
        let half = try Self.run("depthOfField", inputs, ["aperture": .number(1.4), "maxBlur": .number(9.4), "scaleFactor": .number(0.5)])
        #expect(half.samples.count == blurred.samples.count)
    }

    @Test func dollyZoomKeepsTheFocalPlaneInPlace() throws {
        let face = try #require(try SampleLibrary.truth(id: "portrait").faceCenter)
        let image = try Self.image()
        let zoomed = try Self.run("dollyZoom", ["image": "photo", "depth": "photo.depth"],
                                  ["dolly": .number(0.3), "point": .point(x: face.x, y: face.y)])
        let (f, w) = try Self.landmarks()
        for c in 0..<3 { #expect(abs(zoomed.samples[f * 3 + c] - image.samples[f * 3 + c]) < 0.06) }
        // Moving in widens the view past the photo's edge: the far corner is the photo extended (not black) at
        // the defaults, black in the talk's look.
        #expect(zoomed.samples[w * 3] > 0.05 || zoomed.samples[w * 3 + 1] > 0.05)
        let talk = try Self.run("dollyZoom", ["image": "photo", "depth": "photo.depth"],
                                ["dolly": .number(0.3), "point": .point(x: face.x, y: face.y), "frame": .choice("black")])
        #expect(talk.samples[w * 3] == 0 && talk.samples[w * 3 + 1] == 0)
    }

    @Test func lensCorrectionNeedsACalibrationWhenAskedForOne() throws {
        #expect(throws: EffectError.self) { try Self.run("lensCorrection", ["image": "photo"], ["source": .choice("calibration")]) }
        let image = try Self.image()
        let off = try Self.run("lensCorrection", ["image": "photo"], ["strength": .number(0)])
        #expect(off.samples == image.samples)
        let there = try Self.run("lensCorrection", ["image": "photo"], ["source": .choice("manual"), "manual": .number(-8), "strength": .number(2)])
        let back = try S.floats(try Self.photo(), S.notebook([
            S.step("a", "lensCorrection", ["image": "photo"], ["source": .choice("manual"), "manual": .number(-8), "strength": .number(2)]),
            S.step("b", "lensCorrection", ["image": "a"], ["source": .choice("manual"), "manual": .number(-8), "strength": .number(2), "direction": .choice("distort")]),
        ]), "b", width: Self.width)
        // Away from the frame's edge (which the correction pushes out), the inverse warp brings the photo back.
        func interiorError(_ b: PixelBuffer) -> Float {
            var s: Float = 0, n = 0
            for y in 16..<(b.height - 16) { for x in 16..<(b.width - 16) { for c in 0..<3 {
                s += abs(b.samples[(y * b.width + x) * 3 + c] - image.samples[(y * b.width + x) * 3 + c]); n += 1
            } } }
            return s / Float(n)
        }
        #expect(interiorError(back) < 0.5 * interiorError(there))
    }

    @Test func pointCloudAndUpsamplingRender() throws {
        let cloud = try Self.run("pointCloud", ["image": "photo", "depth": "photo.depth"])
        #expect(cloud.channels == 3 && cloud.samples.contains { $0 > 0 } && cloud.samples.contains { $0 == 0 })
        for method in ["nearest", "bilinear", "bicubic", "edgePreserving"] {
            let up = try Self.run("depthUpsampling", ["disparity": "photo.disparity", "image": "photo"], ["method": .choice(method)])
            #expect(up.channels == 1 && up.width == Self.width, "\(method)")
        }
    }

    @Test func edgePreservingUpsamplingIsCloserToTheTruthThanBilinear() throws {
        // Truth: the same scene rendered four times larger has disparity at this photo's image size.
        let small = try Self.photo()
        let big = try SampleLibrary.photo(id: "portrait", width: Self.width * 4)
        let truth = try #require(big.depth).map
        let notebook = S.notebook([
            S.step("jbu", "depthUpsampling", ["disparity": "photo.disparity", "image": "photo"], ["method": .choice("edgePreserving"), "zoom": .number(1)]),
            S.step("lin", "depthUpsampling", ["disparity": "photo.disparity", "image": "photo"], ["method": .choice("bilinear"), "zoom": .number(1)]),
        ])
        let jbu = try S.floats(small, notebook, "jbu", width: truth.width), lin = try S.floats(small, notebook, "lin", width: truth.width)
        // The two renders' heights may differ by a rounding pixel: compare each row with the truth's row at
        // the same height in the frame.
        func error(_ b: PixelBuffer) -> Double {
            var s = 0.0, n = 0
            for y in 0..<b.height {
                let ty = min(truth.height - 1, Int((Double(y) + 0.5) * Double(truth.height) / Double(b.height)))
                for x in 0..<b.width {
                    let v = b.samples[y * b.width + x], t = truth.samples[ty * truth.width + x]
                    if v.isNaN || t.isNaN { continue }
                    s += Double(abs(v - t)); n += 1
                }
            }
            return s / Double(max(1, n))
        }
        #expect(error(jbu) < error(lin))
    }

    @Test func wiggleLoopHasTheRequestedFramesAndMoves() throws {
        let frames = try WiggleLoop.frames(photo: try Self.photo(), photoID: "portrait", count: 6, width: 64,
                                           parameters: ["amplitude": .number(6)])
        #expect(frames.count == 6 && frames.allSatisfy { $0.width == 64 && $0.channels == 3 })
        #expect(frames[0].samples != frames[3].samples)
        #expect(throws: EffectError.self) { try WiggleLoop.frames(photo: try Self.photo(), photoID: "p", count: 1, width: 64) }
    }
}
