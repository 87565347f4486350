@testable import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing

/// The shortcuts a compiled formula takes at engine speed change no bit, but one: a channelwise chain over the
/// photo's bytes is looked up from its value at each of the 256 bytes, a power by 1 is a copy, and values get
/// scratch rows of their own (so the loops vectorise) without changing what they compute. The one: a program
/// that is one costly function of one input's samples (the sRGB decode below) is read from a table of it
/// (`SampleFunctionTable`, tested in SampleFunctionTableTests), within `tableError` of its arithmetic. References are computed here sample by sample with `powf` and the
/// plain arithmetic of docs/formulas.md.
@Suite(.timeLimit(.minutes(30)))
struct FormulaFusionTests {
    typealias P = FormulaProgram

    /// An image of every byte value in every channel, in a scrambled order, as a photo.
    func photo(width: Int = 97, height: Int = 31) throws -> (Node, RGBImage8) {
        var bytes = [UInt8]()
        for i in 0..<(width * height * 3) { bytes.append(UInt8(truncatingIfNeeded: i &* 37 &+ i / 3)) }
        let image = RGBImage8(width: width, height: height, channels: 3, samples: bytes)
        return (try Node(PhotoSource(photo: Photo(image: image), plane: .image, photoID: "fusion-\(width)x\(height)")), image)
    }

    /// sRGB decoding by the formula's own arithmetic: x ≤ 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4).
    func decode() throws -> P { try FormulaFixtures.srgbDecode(.image) }

    /// The power read from its table (`PowerTable`), as the kernels read any row raised to a number.
    func decodeReference(_ x: Float) -> Float { x <= 0.04045 ? x / 12.92 : PowerTable(exponent: 2.4)!.value((x + 0.055) / 1.055) }

    /// How far a tabulated program may be from its arithmetic (twice the table's check, for the float rounding
    /// between checked points).
    static let tableError: Float = 1e-6
    func nearly(_ got: Float, _ want: Float) -> Bool { abs(got - want) <= Self.tableError * max(1, abs(want)) }

    @Test func onlyOneImageInElementwiseStepsIsChannelwise() throws {
        #expect(try decode().isChannelwise)
        let tinted = try P(inputs: [.image], instructions: [P.Instruction(.multiply, [.input(0), .color(1, 0.5, 0.25)], result: 0)],
                           output: .register(0))
        #expect(tinted.isChannelwise)
        let luma = try P(inputs: [.image], instructions: [P.Instruction(.luma, [.input(0)], result: 0),
                                                          P.Instruction(.spread, [.register(0)], result: 1)], output: .register(1))
        #expect(!luma.isChannelwise)
        let twoInputs = try P(inputs: [.image, .image], instructions: [P.Instruction(.add, [.input(0), .input(1)], result: 0)],
                              output: .register(0))
        #expect(!twoInputs.isChannelwise)
        let plane = try P(inputs: [.plane], instructions: [P.Instruction(.abs, [.input(0)], result: 0)], output: .register(0))
        #expect(!plane.isChannelwise)
        #expect(!(try P(inputs: [.image], instructions: [], output: .input(0))).isChannelwise)
    }

    /// decode → × a colour → a blend with a plane: the first two over the bytes (looked up), the blend per pixel;
    /// at native size (bytes), on 1 and 3 threads and on a tile, every sample is the sum done by hand (within the
    /// decode's table error), the tile equals the whole exactly.
    @Test(arguments: [1, 3])
    func aChainOverThePhotosBytesGivesTheSumsDoneByHand(threads: Int) throws {
        let (source, image) = try photo()
        let frame = PixelSize(width: image.width, height: image.height)
        let linear = try Node(FormulaFilter(try decode(), frame: frame), [source])
        let tint = try P(inputs: [.image], instructions: [P.Instruction(.multiply, [.input(0), .color(1, 0.5, 0.25)], result: 0)],
                         output: .register(0))
        let tinted = try Node(FormulaFilter(tint, frame: frame), [linear])
        let mask = EngineFixtures.noise(width: image.width, height: image.height, channels: 1, seed: 9)
        let blend = try P(inputs: [.image, .image, .plane], instructions: [
            P.Instruction(.spread, [.input(2)], result: 0),
            P.Instruction(.mix, [.input(0), .input(1), .register(0)], result: 1),
        ], output: .register(1))
        let out = try Node(FormulaFilter(blend, frame: frame), [source, tinted, try EngineFixtures.source(mask, id: "mask")])

        let colour: [Float] = [1, 0.5, 0.25]
        var expected = [Float]()
        for i in 0..<(image.width * image.height) {
            for c in 0..<3 {
                let x = Float(image.samples[i * 3 + c]) * (1.0 / 255.0)
                let b = decodeReference(x) * colour[c]
                expected.append(x + (b - x) * mask.samples[i])
            }
        }
        let context = RenderContext(threads: threads)
        let whole = try Evaluator(context: context).render(out, RenderTarget(size: frame))
        // The decode is read from its table: within its error, scaled by the blend.
        #expect(zip(whole.samples, expected).allSatisfy { nearly($0, $1) })
        let alone = try Evaluator(context: context).render(tinted, RenderTarget(size: frame))
        #expect(alone.samples.enumerated().allSatisfy { i, v in nearly(v, decodeReference(Float(image.samples[i]) * (1.0 / 255.0)) * colour[i % 3]) })
        let region = PixelRect(x: 11, y: 5, width: 60, height: 20)
        let tile = try Evaluator(context: context).render(out, RenderTarget(size: frame, region: region))
        #expect(tile.samples == whole.cropped(to: region).samples)
        let bytes = try Evaluator(context: context).renderBytes(tinted, RenderTarget(size: frame))
        let rounded = alone.samples.map { v -> UInt8 in UInt8(min(max(v, 0), 1) * 255 + 0.5) }
        #expect(bytes.samples == rounded)
    }

    /// Off the bytes (a preview reduces the photo to floats) the same chain gives the same maths, within the
    /// decode's table error.
    @Test func aChainOverAReducedPhotoIsComputedPerSample() throws {
        let (source, image) = try photo(width: 120, height: 40)
        let linear = try Node(FormulaFilter(try decode(), frame: PixelSize(width: image.width, height: image.height)), [source])
        let target = RenderTarget(size: PixelSize(width: 60, height: 20))
        let reduced = try Evaluator().render(source, target)
        let out = try Evaluator().render(linear, target)
        #expect(zip(out.samples, reduced.samples).allSatisfy { nearly($0, decodeReference($1)) })
    }

    /// pow(max(r, g, b), 0.45), then exp and log: on the photo's bytes (looked up) and on rows where only some
    /// samples are bytes' values (computed), each sample is what powf (or its table, off the bytes), expf and logf give.
    @Test func costlyFunctionsOfBytesGiveTheSameBits() throws {
        let (source, image) = try photo()
        let frame = PixelSize(width: image.width, height: image.height)
        func program(_ input: PixelKind) throws -> P {
            let channels: [P.Instruction] = input == .image ? [
                P.Instruction(.channel(0), [.input(0)], result: 0), P.Instruction(.channel(1), [.input(0)], result: 1),
                P.Instruction(.maximum, [.register(0), .register(1)], result: 0), P.Instruction(.channel(2), [.input(0)], result: 1),
                P.Instruction(.maximum, [.register(0), .register(1)], result: 0),
            ] : [P.Instruction(.abs, [.input(0)], result: 0)]
            // A plane is read beside a second, unused input: one function of one sample would be read from a
            // `SampleFunctionTable` as a whole, and this test is of the kernels' own lookups.
            return try P(inputs: input == .image ? [input] : [input, input], instructions: channels + [
                P.Instruction(.power, [.register(0), .constant(0.45)], result: 1),
                P.Instruction(.exp, [.register(0)], result: 2),
                P.Instruction(.log, [.register(0)], result: 3),
                P.Instruction(.add, [.register(1), .register(2)], result: 1),
                P.Instruction(.add, [.register(1), .register(3)], result: 1),
            ], output: .register(1))
        }
        func reference(_ m: Float) -> Float { powf(m, 0.45) + expf(m) + logf(m) }
        let out = try Evaluator().render(try Node(FormulaFilter(try program(.image), frame: frame), [source]), RenderTarget(size: frame))
        for i in 0..<(image.width * image.height) {
            let m = (0..<3).map { Float(image.samples[i * 3 + $0]) * (1.0 / 255.0) }.max()!
            #expect(out.samples[i].bitPattern == reference(m).bitPattern)
        }
        // A plane of byte values with a few others at the start of one chunk of the kernels and inside the next;
        // the last chunk holds only byte values.
        let chunk = FormulaKernels.chunk
        var values = (0..<(2 * chunk + chunk / 3)).map { Float($0 % 256) * (1.0 / 255.0) }
        for i in [0, chunk + chunk / 6, chunk + chunk / 6 + 1] { values[i] += 1e-3 }
        let plane = try EngineFixtures.source(Raster(width: values.count, height: 1, channels: 1, samples: values), id: "bytes and others")
        let mixed = try Evaluator().render(try Node(FormulaFilter(try program(.plane), frame: frame), [plane, plane]),
                                           RenderTarget(size: PixelSize(width: values.count, height: 1)))
        // The first two chunks hold other values: their power comes from its table (`PowerTable`); the last,
        // all bytes, is looked up from powf's values.
        let table = try #require(PowerTable(exponent: 0.45))
        for (i, x) in values.enumerated() {
            let m = abs(x)
            let want = i < 2 * chunk ? table.value(m) + expf(m) + logf(m) : reference(m)
            #expect(mixed.samples[i].bitPattern == want.bitPattern, "at \(i): \(mixed.samples[i]) vs \(want)")
        }
    }

    /// pow(x, 1) (a copy) and pow(x, y) on rows are powf's values (NaN where powf gives NaN), including −0,
    /// infinities, subnormals and negatives: exactly for y = 1 and exponents past ±4 (powf itself), within a
    /// millionth (relative) where `PowerTable` serves them (or both under the smallest normal float). pow(x, 0.5)
    /// is the correctly rounded root (computed here in double precision), with powf's −0 → +0 and −∞ → +∞.
    @Test func powersAreWhatPowfGives() throws {
        var values: [Float] = [0, -0.0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
                               .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e-20, 1e20, 0.5, 2, -3]
        var state: UInt64 = 12345
        for _ in 0..<20000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Float(bitPattern: UInt32(truncatingIfNeeded: state >> 32)))
        }
        let plane = Raster<Float>(width: values.count, height: 1, channels: 1, samples: values)
        let source = try EngineFixtures.source(plane, id: "powers", hasHoles: true)
        for y: Float in [1, 2.4, 1 / 2.4, 0.5, -1.5, 4, -4, 7.5] {
            let program = try P(inputs: [.plane], instructions: [P.Instruction(.power, [.input(0), .constant(y)], result: 0)],
                                output: .register(0))
            let node = try Node(FormulaFilter(program, frame: PixelSize(width: 1, height: 1)), [source])
            let rows = try Evaluator().render(node, RenderTarget(size: node.extent)).samples
            for (x, got) in zip(values, rows) {
                if y == 0.5 {
                    let want: Float = x == -.infinity ? .infinity : x < 0 || x.isNaN ? .nan : Float(Double(abs(x)).squareRoot())
                    #expect(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN), "pow(\(x), 0.5): \(got) vs \(want)")
                    continue
                }
                let want = powf(x, y)
                let exact = got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN)
                let tabled = PowerTable(exponent: y) != nil && y != 1
                let close = abs(got - want) <= 1e-6 * abs(want) || (abs(got) < .leastNormalMagnitude && abs(want) < .leastNormalMagnitude)
                #expect(exact || (tabled && close), "pow(\(x), \(y)): \(got) vs \(want)")
            }
        }
    }

}

/// `PowerTable` against `powf` over every 37th mantissa of five exponents of x, for the exponents formulas use.
struct PowerTableTests {
    @Test(arguments: [2.4, 1 / 2.4, 0.5, -0.5, 1.5, -4, 4, 0.1] as [Float])
    func withinAMillionthOfPowf(y: Float) throws {
        let table = try #require(PowerTable(exponent: y))
        var worst: Float = 0
        for e: UInt32 in [100, 120, 126, 127, 128] {
            for m in stride(from: UInt32(0), to: 1 << 23, by: 37) {
                let x = Float(bitPattern: e << 23 | m)
                let want = powf(x, y), got = table.value(x)
                worst = max(worst, abs(got - want) / want)
            }
        }
        #expect(worst < 1e-6, "pow(x, \(y)): worst relative error \(worst)")
        #expect(table.value(0).bitPattern == powf(0, y).bitPattern && table.value(-2).isNaN == powf(-2, y).isNaN)
        #expect(table.value(.infinity) == powf(.infinity, y))
    }

    @Test func exponentsPastFourAreLeftToPowf() {
        #expect(PowerTable(exponent: 4.5) == nil && PowerTable(exponent: -7) == nil && PowerTable(exponent: .nan) == nil)
    }
}
