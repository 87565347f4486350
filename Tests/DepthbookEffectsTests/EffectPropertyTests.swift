import DepthbookDocument
import DepthbookEngine
import Foundation
import Testing
@testable import DepthbookEffects

/// Properties the talks' effects must have, on the synthetic samples where the truth is known.
@Suite(.timeLimit(.minutes(30)))
struct EffectPropertyTests {
    typealias S = EffectTestSupport

    private func renderBytes(_ photo: Photo, _ notebook: Notebook, _ cell: String, width: Int) throws -> RGBImage8 {
        try NotebookRenderer(photo: photo).render(notebook: notebook, cell: cell, request: CellRenderRequest(width: width)).image
    }

    private func maxDifference(_ a: RGBImage8, _ b: RGBImage8) -> Int {
        zip(a.samples, b.samples).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test(arguments: [
        ("exposure", ["ev": ParameterValue.number(0)]),
        ("colorControls", [:]),
        ("vibrance", ["amount": .number(0)]),
        ("gamma", ["power": .number(1)]),
        ("gaussianBlur", ["radius": .number(0)]),
        ("discBlur", ["radius": .number(0)]),
    ])
    func identityParametersGiveTheInputBack(effect: String, params: [String: ParameterValue]) throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([S.step("x", effect, ["image": "photo"], params)])
        #expect(try renderBytes(photo, nb, "x", width: 96) == renderBytes(photo, nb, "photo", width: 96))
    }

    @Test func bigHeadAtScaleOneIsTheInput() throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([
            S.step("scaled", "scaleSubject", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["scale": .number(1)]),
            S.step("whole", "bigHead", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                   ["scale": .number(1), "contrast": .number(1), "blur": .number(0)]),
        ])
        let input = try renderBytes(photo, nb, "photo", width: 128)
        #expect(maxDifference(try renderBytes(photo, nb, "scaled", width: 128), input) <= 1)
        #expect(maxDifference(try renderBytes(photo, nb, "whole", width: 128), input) <= 1)
        // Scaling changes the picture, and only where the subject was or now is.
        let bigger = S.notebook([S.step("b", "scaleSubject", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["scale": .number(1.3)])])
        #expect(maxDifference(try renderBytes(photo, bigger, "b", width: 128), input) > 20)
    }

    /// A bigger subject covers more, a smaller one less. The sample portrait is cut by the frame's bottom edge:
    /// made smaller, its head scales by the scale (the area above the taper by its square) while its body keeps
    /// the frame's edges, so the whole matte's area lies between scale² and 1 of the original's.
    @Test func scaledMatteAreaFollowsTheScale() throws {
        let photo = try S.sample("portrait")
        func area(_ scale: Double) throws -> Double {
            let nb = S.notebook([S.step("m", "scaledMatte", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                                        ["scale": .number(scale)])])
            return try S.floats(photo, nb, "m", width: 128).samples.reduce(0) { $0 + Double($1) }
        }
        let one = try area(1), small = try area(0.7)
        #expect(small / one > 0.49 && small / one < 0.95, "area ratio \(small / one)")
        #expect(try area(1.3) > one)
    }

    /// The taper's scale: 1 over the span's lower third, the full scale from its top on, smooth and monotonic
    /// between (so a shrinking warp's pre-image, rise / s, never folds back).
    @Test func theTaperEasesFromOneToTheScale() {
        #expect(SubjectScaleFilter.scale(0.7, rise: 10, span: 0) == 0.7)
        #expect(SubjectScaleFilter.scale(0.7, rise: -5, span: 90) == 1)
        #expect(SubjectScaleFilter.scale(0.7, rise: 30, span: 90) == 1)
        #expect(abs(SubjectScaleFilter.scale(0.7, rise: 60, span: 90) - 0.85) < 1e-12)
        #expect(SubjectScaleFilter.scale(0.7, rise: 90, span: 90) == 0.7)
        #expect(SubjectScaleFilter.scale(0.7, rise: 500, span: 90) == 0.7)
        var last = 0.0
        for rise in stride(from: 0.0, through: 200, by: 0.5) {
            let pre = rise / SubjectScaleFilter.scale(0.5, rise: rise, span: 90)
            #expect(pre >= last)
            last = pre
        }
    }

    @Test func masksStayInUnitRange() throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([
            S.step("t", "depthThreshold", ["disparity": "photo.disparity"]),
            S.step("f", "faceDepthMask", ["disparity": "photo.disparity"], ["gamma": .number(0.3)]),
            S.step("c", "marchingCoverage", ["image": "photo", "matte": "photo.portraitEffectsMatte"]),
            S.step("m", "scaledMatte", ["image": "photo", "matte": "photo.portraitEffectsMatte"], ["scale": .number(1.4)]),
        ])
        for cell in ["t", "f", "c", "m"] {
            let samples = try S.floats(photo, nb, cell, width: 96).samples
            let outside = samples.filter { !($0 >= 0 && $0 <= 1) }.count
            #expect(outside == 0, "\(cell) leaves 0...1")
            #expect(samples.contains { $0 > 0.5 } && samples.contains { $0 < 0.5 }, "\(cell) is flat")
        }
    }

    /// The slides' recipe leaves every pixel where the skin matte is 0 exactly as it was.
    @Test func makeupChangesNothingOutsideTheSkin() throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([
            S.step("skin", "resize", ["input": "photo.skin"]),
            S.step("made", "makeup", ["image": "photo", "skin": "photo.skin"]),
            S.step("hair", "hairColor", ["image": "photo", "hair": "photo.hair"], ["strength": .number(1)]),
        ])
        let width = photo.width
        let skin = try S.floats(photo, nb, "skin", width: width).samples
        let base = try S.floats(photo, nb, "photo", width: width).samples
        let made = try S.floats(photo, nb, "made", width: width).samples
        var outside = 0, changedInside = 0
        for i in skin.indices {
            let same = (0..<3).allSatisfy { made[i * 3 + $0] == base[i * 3 + $0] }
            if skin[i] == 0 {
                outside += 1
                #expect(same, "pixel \(i) changed outside the skin")
                if !same { return }
            } else if skin[i] > 0.9, !same {
                changedInside += 1
            }
        }
        #expect(outside > skin.count / 2)
        #expect(changedInside > 100)
    }

    /// N copies of a lone disc make exactly N separate blobs in the coverage.
    @Test(arguments: [1, 2, 3, 4])
    func marchingPutsNSubjectsInThePicture(count: Int) throws {
        let w = 240, h = 120
        var matte = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w where hypot(Double(x) - 30, Double(y) - 90) < 18 { matte[y * w + x] = 1 }
        }
        let photo = Photo(image: RGBImage8(width: w, height: h, channels: 3, repeating: 128),
                          mattes: [Matte(kind: .portraitEffectsMatte, plane: FloatPlane(width: w, height: h, channels: 1, samples: matte))])
        let nb = S.notebook([S.step("c", "marchingCoverage", ["image": "photo", "matte": "photo.portraitEffectsMatte"],
                                    ["count": .number(Double(count)), "spacing": .number(0.2), "scaleStep": .number(0.8)])])
        let coverage = try S.floats(photo, nb, "c", width: w)
        #expect(ConnectedComponents.count(coverage.samples.map { $0 > 0.5 }, width: w, height: h) == count)
    }

    /// Higher keeps more, as the talk's slider does; the share kept is the percentile (ties aside).
    @Test func thresholdCoverageGrowsWithThePercentile() throws {
        let photo = try S.sample("portrait")
        var previous = -1.0, first = 0.0
        for percentile in [10.0, 25, 40, 55, 70, 85] {
            let nb = S.notebook([S.step("t", "threshold", ["input": "photo.disparity"], ["percentile": .number(percentile)])])
            let mask = try S.floats(photo, nb, "t", width: 64).samples
            let coverage = mask.reduce(0) { $0 + Double($1) } / Double(mask.count)
            // Ties (the wall is one flat disparity) may hold coverage level; it never shrinks.
            #expect(coverage >= previous, "coverage \(coverage) at \(percentile) %")
            if percentile == 10 { first = coverage }
            if percentile == 55 { #expect(coverage > first + 0.3) }
            previous = coverage
        }
    }

    /// The cut keeps the given share: it is the (100 − p)th percentile of the valid disparities, by an
    /// independent sort.
    @Test func thresholdMarkerIsThePercentile() throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([S.step("t", "threshold", ["input": "photo.disparity"], ["percentile": .number(40)])])
        let h = try NotebookRenderer(photo: photo).histogram(notebook: nb, reference: "t", bins: 32)
        let valid = try #require(photo.depth).map.samples.filter { !$0.isNaN }.sorted()
        let rank = 0.6 * Double(valid.count - 1)
        let lo = Double(valid[Int(rank)]), hi = Double(valid[min(valid.count - 1, Int(rank) + 1)])
        let expected = lo + (hi - lo) * (rank - rank.rounded(.down))
        #expect(abs(try #require(h.marker) - expected) < 1e-6)
        let pixels = try #require(photo.depth).map.pixelCount
        #expect(h.bins.reduce(0, +) + h.holes == pixels)
        #expect(h.holes == photo.depth?.map.holeCount)
    }

    /// Backdrop thresholds at the face's depth plus 25 cm: with the sample's known subject at 0.7 m, the cut
    /// sits at 1 / 0.95 m in absolute disparity; relative depth cuts 20 % below the face's disparity.
    @Test func backdropCutsAtFaceDepthPlusMargin() throws {
        let photo = try S.sample("portrait")
        let nb = S.notebook([S.step("m", "faceDepthMask", ["disparity": "photo.disparity"], ["blur": .number(0)])])
        let h = try NotebookRenderer(photo: photo).histogram(notebook: nb, reference: "m", bins: 16)
        let subject = try #require(try SampleLibrary.truth(id: "portrait").subjectDepth)
        #expect(abs(try #require(h.marker) - 1 / (subject + 0.25)) < 0.02)
        let mask = try S.floats(photo, nb, "m", width: photo.width)
        let face = try #require(photo.faces.first)
        #expect(mask.samples[Int(face.centerY) * photo.width + Int(face.centerX)] == 1)
        #expect(mask.samples[5 * photo.width + 5] == 0)

        let outdoor = try S.sample("portrait-outdoor")
        let truth = try SampleLibrary.truth(id: "portrait-outdoor")
        let relative = try NotebookRenderer(photo: outdoor).histogram(notebook: nb, reference: "m", bins: 16)
        let faceDisparity = truth.disparityScale / (try #require(truth.subjectDepth))
        #expect(abs(try #require(relative.marker) - faceDisparity * 0.8) < faceDisparity * 0.02)
    }

    /// Without a face, Backdrop takes a clicked point, else the nearest large region; a face region lying
    /// outside the picture (bad metadata) is clamped, not a crash.
    @Test func backdropSubjectSources() throws {
        let still = try S.sample("still-life")
        func marker(_ photo: Photo, _ params: [String: ParameterValue]) throws -> Double? {
            let nb = S.notebook([S.step("m", "faceDepthMask", ["disparity": "photo.disparity"], params)])
            return try NotebookRenderer(photo: photo).histogram(notebook: nb, reference: "m", bins: 8).marker
        }
        let truth = try SampleLibrary.truth(id: "still-life")
        // The orange (nearest prop, 0.6 m) under a clicked point: relative depth cuts 20 % below its disparity.
        let orange = try #require(try marker(still, ["source": .choice("point"), "point": .point(x: 0.42, y: 0.77)]))
        let orangeDisparity = truth.disparityScale / (try #require(truth.propDepths["orange"]))
        #expect(orange > orangeDisparity * 0.8 * 0.9 && orange <= orangeDisparity * 0.8 * 1.001)
        #expect(try marker(still, ["source": .choice("nearest")]) != nil)
        #expect(throws: EffectError.self) { try marker(still, ["source": .choice("face")]) }
        #expect(throws: EffectError.self) { try marker(still, ["source": .choice("point")]) }
        var odd = try S.sample("portrait")
        odd.faces = [FaceRegion(x: 1e6, y: -1e6, width: 50, height: 50)]
        #expect(try marker(odd, [:]) != nil)
    }

    @Test func missingMatteIsNamed() throws {
        let still = try S.sample("still-life")
        let nb = S.notebook([S.step("m", "makeup", ["image": "photo", "skin": "photo.skin"])])
        #expect(throws: EffectError.missingPlane("photo.skin")) {
            try NotebookRenderer(photo: still).render(notebook: nb, cell: "m", request: CellRenderRequest(width: 64))
        }
        let outdoor = try S.sample("portrait-outdoor")
        let glasses = S.notebook([S.step("g", "glassesTint", ["image": "photo", "glasses": "photo.glasses"])])
        #expect(throws: EffectError.missingPlane("photo.glasses")) {
            try NotebookRenderer(photo: outdoor).render(notebook: glasses, cell: "g", request: CellRenderRequest(width: 64))
        }
        #expect(EffectError.missingPlane("photo.glasses").description.contains("photo.glasses"))
    }

    @Test func badParametersAndInputsAreRefused() throws {
        let photo = try S.sample("portrait")
        let renderer = NotebookRenderer(photo: photo)
        func attempt(_ cell: Cell) throws {
            _ = try renderer.render(notebook: S.notebook([cell]), cell: cell.id, request: CellRenderRequest(width: 64))
        }
        // Parameters are refused when the notebook arrives (validation, which decoding runs), not at the render.
        let unknown = S.step("x", "exposure", ["image": "photo"], ["stops": .number(1)])
        #expect(throws: EffectError.unknownParameter(effect: "exposure", name: "stops")) { try ParameterCheck.check(unknown.params ?? [:], cell: unknown) }
        #expect(throws: EffectError.badRequest("cell \"x\": exposure has no parameter \"stops\"")) { try NotebookValidator().check(S.notebook([unknown])) }
        let outside = S.step("x", "exposure", ["image": "photo"], ["ev": .number(9)])
        #expect(throws: EffectError.badParameter(effect: "exposure", name: "ev", message: "must be between -5 and 5, not 9")) {
            try ParameterCheck.check(outside.params ?? [:], cell: outside)
        }
        #expect(throws: EffectError.self) { try NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: JSONEncoder().encode(S.notebook([outside])))) }
        #expect(throws: EffectError.unknownEffect("sparkle")) { try attempt(S.step("x", "sparkle", [:])) }
        // An input of the wrong kind too; one left unconnected is said by its cell when it renders.
        let plane = S.step("x", "noir", ["image": "photo.disparity"])
        #expect(throws: NotebookError.invalid("cell \"x\": noir: input \"image\" needs an image, but \"photo.disparity\" is a plane")) {
            try NotebookValidator().check(S.notebook([plane]))
        }
        #expect(throws: EffectError.badInput(effect: "noir", message: "input \"image\" is not connected")) { try attempt(S.step("x", "noir", [:])) }
    }

    @Test func secondRenderComesFromTheCache() throws {
        let photo = try S.sample("portrait")
        let renderer = NotebookRenderer(photo: photo)
        let nb = S.notebook([S.step("x", "matteSeparation", ["image": "photo", "matte": "photo.portraitEffectsMatte"])])
        let first = try renderer.render(notebook: nb, cell: "x", request: CellRenderRequest(width: 64))
        let second = try renderer.render(notebook: nb, cell: "x", request: CellRenderRequest(width: 64))
        #expect(first.cacheMisses > 0)
        // The blurred background and the sources come back from the cache; only the fused per-pixel tail reruns.
        #expect(second.cacheHits > 0 && second.cacheMisses < first.cacheMisses)
        #expect(first.image == second.image)
    }

    /// A crop is the same pixels as the full-resolution render over that rectangle.
    @Test func cropMatchesTheFullRender() throws {
        let photo = try S.sample("portrait", width: 96)
        let nb = S.notebook([S.step("x", "bigHead", ["image": "photo", "matte": "photo.portraitEffectsMatte"])])
        let renderer = NotebookRenderer(photo: photo)
        let full = try renderer.render(notebook: nb, cell: "x", request: CellRenderRequest(width: photo.width)).image
        let region = CellRenderRequest.Region(x: 20, y: 30, width: 40, height: 24)
        let crop = try NotebookRenderer(photo: photo).render(notebook: nb, cell: "x", request: CellRenderRequest(width: 64, region: region)).image
        #expect(crop.width == 40 && crop.height == 24)
        var worst = 0
        for y in 0..<24 {
            for x in 0..<40 {
                for c in 0..<3 { worst = max(worst, abs(Int(crop[x, y, c]) - Int(full[x + 20, y + 30, c]))) }
            }
        }
        #expect(worst <= 1)
    }

    @Test func planesRenderAsColourMapAndGrey() throws {
        let photo = try S.sample("portrait")
        let renderer = NotebookRenderer(photo: photo)
        let nb = S.notebook([])
        let depth = try renderer.render(notebook: nb, cell: "photo.disparity", request: CellRenderRequest(width: 64))
        #expect(depth.kind == .depth && depth.image.channels == 3)
        let matte = try renderer.render(notebook: nb, cell: "photo.portraitEffectsMatte", request: CellRenderRequest(width: 64))
        #expect(matte.kind == .mask)
        let s = matte.image.samples
        var grey = true
        for i in stride(from: 0, to: s.count, by: 3) where s[i] != s[i + 1] || s[i] != s[i + 2] { grey = false }
        #expect(grey)
    }
}

/// 4-connected components of a binary image, counted with a flood fill.
enum ConnectedComponents {
    static func count(_ on: [Bool], width: Int, height: Int) -> Int {
        var seen = [Bool](repeating: false, count: on.count)
        var components = 0
        for start in on.indices where on[start] && !seen[start] {
            components += 1
            var stack = [start]
            seen[start] = true
            while let i = stack.popLast() {
                let x = i % width, y = i / width
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let j = ny * width + nx
                    if on[j] && !seen[j] { seen[j] = true; stack.append(j) }
                }
            }
        }
        return components
    }
}
