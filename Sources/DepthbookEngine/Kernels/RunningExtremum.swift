/// Sliding-window maximum (or minimum) of a row with the van Herk / Gil-Werman method: blocks of the window's
/// length, a forward and a backward running extremum per block, so each output costs 3 comparisons whatever
/// the window. Max and min are exact, so the result does not depend on where a region starts.
struct RunningExtremum {
    let isMax: Bool

    @inline(__always)
    func pick(_ a: Float, _ b: Float) -> Float { isMax ? max(a, b) : min(a, b) }

    /// out[i] = extremum of src[i ..< i + window] for i in 0..<count; `src` has count + window − 1 values.
    /// `forward` and `backward` are scratch of count + window − 1 values.
    func run(_ src: UnsafePointer<Float>, window: Int, count: Int, out: UnsafeMutablePointer<Float>,
             forward: UnsafeMutablePointer<Float>, backward: UnsafeMutablePointer<Float>) {
        if window <= 1 {
            out.update(from: src, count: count)
            return
        }
        let n = count + window - 1
        if isMax {
            Self.blocks(src, n, window, forward, backward) { $0 > $1 ? $0 : $1 }
            for i in 0..<count { let a = backward[i], b = forward[i + window - 1]; out[i] = a > b ? a : b }
        } else {
            Self.blocks(src, n, window, forward, backward) { $0 < $1 ? $0 : $1 }
            for i in 0..<count { let a = backward[i], b = forward[i + window - 1]; out[i] = a < b ? a : b }
        }
    }

    /// Forward and backward running extrema within consecutive blocks of `window` samples.
    @inline(__always)
    static func blocks(_ src: UnsafePointer<Float>, _ n: Int, _ window: Int, _ forward: UnsafeMutablePointer<Float>,
                       _ backward: UnsafeMutablePointer<Float>, _ pick: (Float, Float) -> Float) {
        var start = 0
        while start < n {
            let end = min(n, start + window)
            forward[start] = src[start]
            var i = start + 1
            while i < end { forward[i] = pick(forward[i - 1], src[i]); i += 1 }
            backward[end - 1] = src[end - 1]
            i = end - 2
            while i >= start { backward[i] = pick(backward[i + 1], src[i]); i -= 1 }
            start = end
        }
    }
}
