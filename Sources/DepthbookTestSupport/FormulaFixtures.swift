import DepthbookEngine

/// Formula programs more than one suite runs.
public enum FormulaFixtures {
    /// sRGB decoding by a formula's own arithmetic: x ≤ 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4), on a
    /// plane or on an image's every channel.
    public static func srgbDecode(_ kind: PixelKind) throws -> FormulaProgram {
        typealias P = FormulaProgram
        return try P(inputs: [kind], instructions: [
            P.Instruction(.lessOrEqual, [.input(0), .constant(0.04045)], result: 0),
            P.Instruction(.divide, [.input(0), .constant(12.92)], result: 1),
            P.Instruction(.add, [.input(0), .constant(0.055)], result: 2),
            P.Instruction(.divide, [.register(2), .constant(1.055)], result: 2),
            P.Instruction(.power, [.register(2), .constant(2.4)], result: 2),
            P.Instruction(.select, [.register(0), .register(1), .register(2)], result: 3),
        ], output: .register(3))
    }
}
