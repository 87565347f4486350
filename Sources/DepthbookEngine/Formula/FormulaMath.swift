import func Foundation.expf
import func Foundation.logf
import func Foundation.powf

/// The per-sample maths of a formula program, one function per operation. Constant folding (`FormulaProgram.fold`)
/// and the row kernels (`FormulaKernels`) both call these, so a value folded at compile time is the value the
/// rows would have computed; the one exception is a row raised to a number, which the kernels read from a
/// `PowerTable` (within a millionth of `powf`, relative), or take the square root of for 0.5 (`squareRootPower`,
/// the correctly rounded value, which `powf` misses by an ulp at times). Float32 throughout, as every plane is.
public enum FormulaMath {
    @inline(__always) public static func negate(_ a: Float) -> Float { -a }
    @inline(__always) public static func absolute(_ a: Float) -> Float { abs(a) }
    /// NaN below 0.
    @inline(__always) public static func squareRoot(_ a: Float) -> Float { a.squareRoot() }
    @inline(__always) public static func exponential(_ a: Float) -> Float { expf(a) }
    /// Natural logarithm: −∞ at 0, NaN below.
    @inline(__always) public static func logarithm(_ a: Float) -> Float { logf(a) }

    @inline(__always) public static func add(_ a: Float, _ b: Float) -> Float { a + b }
    @inline(__always) public static func subtract(_ a: Float, _ b: Float) -> Float { a - b }
    @inline(__always) public static func multiply(_ a: Float, _ b: Float) -> Float { a * b }
    @inline(__always) public static func divide(_ a: Float, _ b: Float) -> Float { a / b }
    /// C's `powf`: NaN for a negative base and a non-integer exponent, pow(x, 0) = 1 for every x.
    @inline(__always) public static func power(_ a: Float, _ b: Float) -> Float { powf(a, b) }
    /// x^0.5 as `powf` defines it at the edges (−0 → +0, −∞ → +∞, NaN below 0), from the square root.
    @inline(__always) public static func squareRootPower(_ a: Float) -> Float {
        // The root of |a|, taken before the tests: the compiler then knows it never sets errno, and the loops
        // over it vectorise (−0 ≥ 0, so it gets √+0 = +0).
        let root = abs(a).squareRoot()
        return a >= 0 ? root : (a == -.infinity ? .infinity : .nan)
    }
    @inline(__always) public static func minimum(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
    @inline(__always) public static func maximum(_ a: Float, _ b: Float) -> Float { b > a ? b : a }
    @inline(__always) public static func less(_ a: Float, _ b: Float) -> Float { a < b ? 1 : 0 }
    @inline(__always) public static func lessOrEqual(_ a: Float, _ b: Float) -> Float { a <= b ? 1 : 0 }
    @inline(__always) public static func greater(_ a: Float, _ b: Float) -> Float { a > b ? 1 : 0 }
    @inline(__always) public static func greaterOrEqual(_ a: Float, _ b: Float) -> Float { a >= b ? 1 : 0 }
    @inline(__always) public static func equal(_ a: Float, _ b: Float) -> Float { a == b ? 1 : 0 }
    @inline(__always) public static func notEqual(_ a: Float, _ b: Float) -> Float { a != b ? 1 : 0 }
    /// GLSL's step: 0 below the edge, 1 at or above it.
    @inline(__always) public static func step(_ edge: Float, _ x: Float) -> Float { x < edge ? 0 : 1 }

    /// `a` where the condition is true (not 0; NaN counts as false), else `b`.
    @inline(__always) public static func select(_ c: Float, _ a: Float, _ b: Float) -> Float { (c > 0 || c < 0) ? a : b }
    /// a + (b − a)·t: the arithmetic of `BlendWithMask` (background a, foreground b, mask t).
    @inline(__always) public static func mix(_ a: Float, _ b: Float, _ t: Float) -> Float { a + (b - a) * t }
    /// min(max(x, lo), hi); NaN stays NaN.
    @inline(__always) public static func clamp(_ x: Float, _ lo: Float, _ hi: Float) -> Float {
        let up = lo > x ? lo : x
        return hi < up ? hi : up
    }
    /// GLSL's smoothstep: t = clamp((x − e0)/(e1 − e0), 0, 1), t²(3 − 2t); a step at e0 when e0 = e1.
    @inline(__always) public static func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
        if e0 == e1 { return x < e0 ? 0 : 1 }
        let t = clamp((x - e0) / (e1 - e0), 0, 1)
        return t * t * (3 - 2 * t)
    }

    /// Rec. 709 luma of encoded values: 0.2126 R + 0.7152 G + 0.0722 B.
    @inline(__always) public static func luma(_ r: Float, _ g: Float, _ b: Float) -> Float { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    /// (x − low)·scale clamped to 0…1; a hole (NaN) reads as `hole`.
    @inline(__always) public static func normalize(_ x: Float, low: Float, scale: Float, hole: Float) -> Float {
        x.isNaN ? hole : clamp((x - low) * scale, 0, 1)
    }
}
