/// A formula that is one function of its one input's samples, read from a table instead of run. An sRGB curve
/// written out (`x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)`) is six operations a sample, one of
/// them a power; the built-in effects read the same curves from tables (`Exposure`), and a formula rebuilding
/// them should cost what they do.
///
/// The nodes are spaced like floats: 1024 to each power of two from 2^-12 up to 4, so a sample's bit pattern is
/// its index (its exponent and top 10 mantissa bits) and its last 13 bits interpolate, and the steep start of a
/// curve like x^(1/2.4), where most of a darkened picture lies, is as finely tabulated as its end. Exact where
/// interpolation is not: each cell is checked at its quarter points against the program itself, and a cell that
/// misses by more than 5e-7 (relative above 1) there (a kink of a `? :`, a jump of a comparison, a NaN) is
/// marked; samples falling in it are computed by the program, as are 0 (read from its own entry), samples
/// outside 2^-12…4, negatives and NaN (a disparity hole). An image's channels each get their own function (a
/// colour constant makes them differ).
struct SampleFunctionTable: Sendable {
    /// Bit patterns of the smallest and largest samples the nodes cover (2^-12 and 4).
    static let lowBits = Float(0x1p-12).bitPattern
    static let highBits = Float(4).bitPattern
    /// Mantissa bits below the index, interpolated.
    static let fractionBits: UInt32 = 13
    /// Cells (one per index); nodes are one more.
    static let cells = Int((highBits - lowBits) >> fractionBits)
    /// Largest error allowed between interpolation and program at a cell's checked points.
    static let tolerance: Float = 5e-7

    /// Samples a pixel: 1 for a plane, 3 for an image.
    let width: Int
    /// Channel c's value at node k is `values[c * (cells + 1) + k]`.
    private let values: [Float]
    /// Channel c's cell k is computed exactly when `exact[c * cells + k]`.
    private let exact: [Bool]
    /// Each channel's value at 0.
    private let atZero: [Float]

    static func node(_ k: Int) -> Float { Float(bitPattern: lowBits + UInt32(k) << fractionBits) }

    /// The table of the function `evaluate` computes: `evaluate(x, n, out)` runs the program over `n` pixels of
    /// `x` (`width` samples each) into `out`.
    init(width: Int, evaluate: (UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>) -> Void) {
        let cells = Self.cells, nodes = cells + 1
        // Each cell's node and its three quarter points, then the last node and 0: 4·cells + 2 points, every
        // channel of a point the same sample. (Built in place: this runs on a slider's every new value.)
        let count = 4 * cells + 2
        var input = [Float](repeating: 0, count: count * width)
        for k in 0..<cells {
            let a = Self.node(k), step = Self.node(k + 1) - a
            for q in 0..<4 {
                let x = a + step * Float(q) * 0.25
                for c in 0..<width { input[(4 * k + q) * width + c] = x }
            }
        }
        for c in 0..<width { input[4 * cells * width + c] = Self.node(cells) }
        var output = [Float](repeating: 0, count: input.count)
        input.withUnsafeBufferPointer { x in
            output.withUnsafeMutableBufferPointer { out in evaluate(x.baseAddress!, count, out.baseAddress!) }
        }
        var values = [Float](repeating: 0, count: width * nodes)
        var exact = [Bool](repeating: false, count: width * cells)
        for c in 0..<width {
            for k in 0..<cells { values[c * nodes + k] = output[4 * k * width + c] }
            values[c * nodes + cells] = output[4 * cells * width + c]
            for k in 0..<cells {
                let a = values[c * nodes + k], b = values[c * nodes + k + 1]
                for q in 1..<4 {
                    let want = output[(4 * k + q) * width + c]
                    let got = a + (b - a) * (Float(q) * 0.25)
                    // NaN or an infinity anywhere fails the comparison: computed exactly.
                    if !(abs(got - want) <= Self.tolerance * max(1, abs(want))) { exact[c * cells + k] = true }
                }
            }
        }
        self.width = width
        self.values = values
        self.exact = exact
        self.atZero = (0..<width).map { output[(count - 1) * width + $0] }
    }

    /// Interpolates `pixels` pixels of `x` into `out`, and appends to `missed` the index of every pixel with a
    /// sample the table does not serve: the caller computes those.
    func apply(_ x: UnsafePointer<Float>, pixels: Int, into out: UnsafeMutablePointer<Float>, missed: inout [Int]) {
        let cells = Self.cells, low = Self.lowBits, span = Self.highBits - Self.lowBits
        let shift = Self.fractionBits, mask = UInt32(1) << shift - 1, unit = 1 / Float(1 << shift)
        let width = self.width
        values.withUnsafeBufferPointer { v in
            exact.withUnsafeBufferPointer { e in
                for i in 0..<pixels {
                    var served = true
                    for c in 0..<width {
                        let s = x[i &* width &+ c]
                        // Positive floats order as their bit patterns; negatives and NaN fall outside.
                        let b = s.bitPattern &- low
                        if b < span {
                            let k = Int(b >> shift)
                            if e[c &* cells &+ k] { served = false; continue }
                            let at = c &* (cells &+ 1) &+ k
                            let a = v[at]
                            out[i &* width &+ c] = a + (v[at &+ 1] - a) * (Float(b & mask) * unit)
                        } else if s.bitPattern == 0 {
                            out[i &* width &+ c] = atZero[c]
                        } else {
                            served = false
                        }
                    }
                    if !served { missed.append(i) }
                }
            }
        }
    }
}
