/// An affine colour transform out = M · rgb + bias, optionally clamped to 0...1.
/// Core Image: CIColorMatrix (inputRVector, inputGVector, inputBVector, inputBiasVector) + CIColorClamp.
///
/// Works on the stored (sRGB-encoded) values, as CIColorMatrix does on a working space the caller chose.
public struct ColorMatrix: PointwiseFilter {
    public static let info = FilterInfo(
        name: "colorMatrix", coreImageName: "CIColorMatrix",
        summary: "3×4 affine colour matrix on RGB (rows: R, G, B; columns: r, g, b, bias), then optional clamp.",
        parameters: ["r", "g", "b"].flatMap { row in
            ["r", "g", "b", "bias"].map { col in
                ParameterInfo("\(row)\(col == "bias" ? "Bias" : col.uppercased())",
                              range: -16...16,
                              doc: "Weight of input \(col) in output \(row) (bias: added constant, 0...1 scale).")
            }
        } + [ParameterInfo("clamp", range: 0...1, doc: "1 clamps the result to 0...1.")])

    /// Row-major 3×4.
    public let matrix: [Float]
    public let clamps: Bool

    /// `matrix`: 12 values, row-major 3×4 (each row r, g, b, bias).
    public init(matrix: [Double], clamp: Bool = true) throws {
        guard matrix.count == 12 else {
            throw RenderError.badParameter(filter: Self.info.name, name: "matrix", message: "needs 12 values (3×4)")
        }
        for (i, v) in matrix.enumerated() { try Self.info.parameters[i].validate(v, in: Self.info.name) }
        self.matrix = matrix.map(Float.init)
        self.clamps = clamp
    }

    public var parameterKey: String { matrix.map { "\($0)" }.joined(separator: ",") + (clamps ? ",clamp" : "") }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let m = matrix, src = inputs[0]
        let (m0, m1, m2, m3) = (m[0], m[1], m[2], m[3])
        let (m4, m5, m6, m7) = (m[4], m[5], m[6], m[7])
        let (m8, m9, m10, m11) = (m[8], m[9], m[10], m[11])
        if clamps && m0 == m4 && m4 == m8 && m1 == m5 && m5 == m9 && m2 == m6 && m6 == m10 && m3 == m7 && m7 == m11 {
            // Grey output (noir, mono: every row the same): one dot product per pixel, the same bits in each channel.
            for i in 0..<count {
                let j = i * 3
                let v = unitClamp(m0 * src[j] + m1 * src[j + 1] + m2 * src[j + 2] + m3)
                output[j] = v
                output[j + 1] = v
                output[j + 2] = v
            }
        } else if clamps {
            for i in 0..<count {
                let j = i * 3
                let r = src[j], g = src[j + 1], b = src[j + 2]
                output[j] = unitClamp(m0 * r + m1 * g + m2 * b + m3)
                output[j + 1] = unitClamp(m4 * r + m5 * g + m6 * b + m7)
                output[j + 2] = unitClamp(m8 * r + m9 * g + m10 * b + m11)
            }
        } else {
            for i in 0..<count {
                let j = i * 3
                let r = src[j], g = src[j + 1], b = src[j + 2]
                output[j] = m0 * r + m1 * g + m2 * b + m3
                output[j + 1] = m4 * r + m5 * g + m6 * b + m7
                output[j + 2] = m8 * r + m9 * g + m10 * b + m11
            }
        }
    }
}

/// x clamped to 0...1 (NaN gives 0), with plain comparisons the compiler can vectorise.
@inline(__always)
func unitClamp(_ x: Float) -> Float { x > 0 ? (x < 1 ? x : 1) : 0 }
