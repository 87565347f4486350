/// Interpolation kernels for resampling. Sample centres sit at half pixels: output pixel i of a row of
/// `outSize` samples the input at x = (i + 0.5) · inSize / outSize − 0.5. Indices outside the plane are
/// clamped to its edge (clamp-to-extent).
public enum ResamplingMethod: String, Sendable, Hashable, CaseIterable {
    /// The input pixel whose cell contains the sample centre.
    case nearest
    /// Linear between the two nearest pixels (a triangle kernel; OpenCV INTER_LINEAR when enlarging).
    case bilinear
    /// Keys cubic convolution, a = −0.5 (Catmull-Rom).
    case bicubic
    /// Lanczos windowed sinc with 3 lobes.
    case lanczos

    /// Half-width of the kernel in input pixels (before widening for a reduction).
    var support: Double {
        switch self {
        case .nearest: return 0.5
        case .bilinear: return 1
        case .bicubic: return 2
        case .lanczos: return 3
        }
    }

    func weight(_ x: Double) -> Double {
        let ax = abs(x)
        switch self {
        case .nearest:
            return ax < 0.5 ? 1 : 0
        case .bilinear:
            return max(0, 1 - ax)
        case .bicubic:
            let a = -0.5
            if ax <= 1 { return ((a + 2) * ax - (a + 3)) * ax * ax + 1 }
            if ax < 2 { return ((a * ax - 5 * a) * ax + 8 * a) * ax - 4 * a }
            return 0
        case .lanczos:
            if ax < 1e-12 { return 1 }
            if ax >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}

/// Per-output-pixel taps of a 1-D resampling: for each output index, `taps` input indices (already clamped
/// to the plane) and their weights (summing to 1).
struct TapTable {
    let taps: Int
    var indices: [Int32]
    var weights: [Float]
    /// Input indices touched: every index lies in `lowest...highest`.
    let lowest: Int
    let highest: Int

    /// The input indices that outputs `outputs` (counted from the table's first) read, zero-weight taps included.
    func inputRange(outputs: Range<Int>) -> Range<Int> {
        var low = Int.max, high = Int.min
        for i in (outputs.lowerBound * taps)..<(outputs.upperBound * taps) {
            low = min(low, Int(indices[i]))
            high = max(high, Int(indices[i]))
        }
        return low <= high ? low..<(high + 1) : 0..<0
    }

    /// Taps for outputs `first..<first+count` of a row of `outSize` resampled from `inSize`.
    /// When reducing and `antialias` is set, the kernel is widened by the reduction factor (area-like).
    init(inSize: Int, outSize: Int, first: Int, count: Int, method: ResamplingMethod, antialias: Bool) {
        let ratio = Double(inSize) / Double(outSize)
        let stretch = (antialias && ratio > 1 && method != .nearest) ? ratio : 1
        let support = method.support * stretch
        let taps = method == .nearest ? 1 : Int((2 * support).rounded(.up)) + 1
        var indices = [Int32](repeating: 0, count: count * taps)
        var weights = [Float](repeating: 0, count: count * taps)
        var lowest = Int.max, highest = Int.min
        for o in 0..<count {
            let i = first + o
            let centre = (Double(i) + 0.5) * ratio - 0.5
            if method == .nearest {
                let index = min(inSize - 1, max(0, Int(((Double(i) + 0.5) * ratio).rounded(.down))))
                indices[o] = Int32(index)
                weights[o] = 1
                lowest = min(lowest, index)
                highest = max(highest, index)
                continue
            }
            let start = Int((centre - support).rounded(.down)) + 1
            var w = [Double](repeating: 0, count: taps)
            var sum = 0.0
            for k in 0..<taps {
                let v = method.weight((Double(start + k) - centre) / stretch)
                w[k] = v
                sum += v
            }
            let firstIndex = min(inSize - 1, max(0, start))
            for k in 0..<taps {
                // Zero-weight taps point at the first tap, so every index read lies in lowest...highest.
                let index = w[k] == 0 ? firstIndex : min(inSize - 1, max(0, start + k))
                indices[o * taps + k] = Int32(index)
                weights[o * taps + k] = Float(sum != 0 ? w[k] / sum : (k == 0 ? 1 : 0))
                if w[k] != 0 || k == 0 {
                    lowest = min(lowest, index)
                    highest = max(highest, index)
                }
            }
        }
        self.taps = taps
        self.indices = indices
        self.weights = weights
        self.lowest = count == 0 ? 0 : lowest
        self.highest = count == 0 ? -1 : highest
    }
}

import func Foundation.sin
