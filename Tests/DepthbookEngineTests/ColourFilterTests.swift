import DepthbookEngine
import DepthbookTestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct ColourFilterTests {
    /// Odd size with values beyond 0...1 (extreme inputs) to exercise signs and clamps.
    func image(_ seed: UInt64 = 4) -> Raster<Float> {
        var r = EngineFixtures.noise(width: 13, height: 7, channels: 3, seed: seed)
        r.samples = r.samples.map { $0 * 1.4 - 0.2 }
        return r
    }

    func render(_ node: Node) throws -> [Float] {
        try Evaluator().render(node, RenderTarget(size: node.extent)).samples
    }

    @Test(arguments: [
        ("toLinear", [String]()), ("toSRGB", []), ("exposure", ["1.5"]), ("exposure", ["-3"]),
        ("colorControls", ["1.7", "0.1", "1.3"]), ("colorControls", ["0", "-0.2", "0.5"]), ("vibrance", ["0.8"]),
        ("vibrance", ["-1"]), ("maxComponent", []), ("gamma", ["0.5"]), ("gamma", ["2.2"]),
    ])
    func singleInputMatchesNumpy(op: String, params: [String]) throws {
        let raster = image()
        let source = try EngineFixtures.source(raster)
        let filter: any Filter
        switch op {
        case "toLinear": filter = SRGBTransfer(toLinear: true)
        case "toSRGB": filter = SRGBTransfer(toLinear: false)
        case "exposure": filter = try Exposure(ev: Double(params[0])!)
        case "colorControls": filter = try ColorControls(saturation: Double(params[0])!, brightness: Double(params[1])!, contrast: Double(params[2])!)
        case "vibrance": filter = try Vibrance(amount: Double(params[0])!)
        case "maxComponent": filter = ComponentExtremum(maximum: true)
        default: filter = try Gamma(power: Double(params[0])!)
        }
        let ours = try render(source.applying(filter))
        let reference = try PythonReference("colour.py").run([raster.samples], arguments: [op] + params)
        #expect(EngineFixtures.maxDifference(ours, reference) < 2e-5, "\(op) \(params)")
    }

    @Test(arguments: Composite.Mode.allCases)
    func compositesMatchNumpy(mode: Composite.Mode) throws {
        let a = image(1), b = image(2), alpha = EngineFixtures.noise(width: 13, height: 7, channels: 1, seed: 3)
        var inputs = [try EngineFixtures.source(a, id: "a"), try EngineFixtures.source(b, id: "b")]
        if mode == .sourceOver { inputs.append(try EngineFixtures.source(alpha, id: "alpha")) }
        let ours = try render(Node(Composite(mode), inputs))
        let reference = try PythonReference("colour.py").run([a.samples, b.samples, alpha.samples], arguments: [mode.rawValue])
        #expect(EngineFixtures.maxDifference(ours, reference) < 1e-5)
    }

    @Test func minimumComponentAndDisparity() throws {
        let rgb = try EngineFixtures.source(Raster(width: 1, height: 1, channels: 3, samples: [0.2, 0.7, 0.4]))
        #expect(try render(rgb.applying(ComponentExtremum(maximum: false))) == [0.2, 0.2, 0.2])
        let depth = try EngineFixtures.source(Raster(width: 4, height: 1, channels: 1, samples: [2, 0, -1, .nan]), hasHoles: true)
        let out = try render(depth.applying(DepthDisparity()))
        #expect(out[0] == 0.5 && out[1].isNaN && out[2].isNaN && out[3].isNaN)
    }

    /// The photo effects are documented approximations: check their defining properties by hand.
    @Test func photoEffectsFollowTheirDocumentation() throws {
        let rgb = try EngineFixtures.source(Raster(width: 3, height: 1, channels: 3, samples: [0.2, 0.7, 0.4, 0, 0, 0, 1, 1, 1]))
        let luma: Float = 0.299 * 0.2 + 0.587 * 0.7 + 0.114 * 0.4
        let mono = try render(rgb.applying(PhotoEffect(.mono)))
        #expect(abs(mono[0] - luma) < 1e-6 && mono[0] == mono[1] && mono[1] == mono[2])
        let noir = try render(rgb.applying(PhotoEffect(.noir)))
        #expect(abs(noir[0] - ((luma - 0.5) * 1.5 + 0.5)) < 1e-6)
        let fade = try render(rgb.applying(PhotoEffect(.fade)))
        #expect(abs(fade[3] - 0.1) < 1e-6 && abs(fade[6] - 0.9) < 1e-6)
        for style in PhotoEffect.Style.allCases {
            let out = try render(rgb.applying(PhotoEffect(style)))
            #expect(out.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(style) stays in 0...1")
        }
        let chrome = try render(rgb.applying(PhotoEffect(.chrome)))
        #expect(chrome[1] - chrome[0] > 0.7 - 0.2, "chrome is more saturated")
        let instant = try render(rgb.applying(PhotoEffect(.instant)))
        #expect(instant[3] > instant[5], "instant lifts blacks with a warm cast")
    }

    @Test func rejectsOutOfRangeParameters() {
        #expect(throws: RenderError.self) { try Exposure(ev: 11) }
        #expect(throws: RenderError.self) { try ColorControls(saturation: -1) }
        #expect(throws: RenderError.self) { try Vibrance(amount: 2) }
        #expect(throws: RenderError.self) { try Gamma(power: 0) }
    }
}
