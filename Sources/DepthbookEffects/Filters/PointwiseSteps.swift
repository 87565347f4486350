import DepthbookEngine
import Foundation

// Small per-pixel operations the effects need and the engine does not (yet) offer. Each is a
// `PointwiseFilter`, so the engine fuses them into its row-by-row chains like its own.

/// 1 where the plane is at or below `cut` (NaN holes give 0): thresholding metric depth, where near is small.
struct ThresholdBelow: PointwiseFilter {
    static let info = FilterInfo(name: "thresholdBelow", coreImageName: nil, summary: "1 where value ≤ cut, else 0 (holes 0).")
    let cut: Float
    var parameterKey: String { "t=\(cut)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0]
        for i in 0..<count { output[i] = src[i] <= cut ? 1 : 0 }
    }
}

/// Each sample to a power (CIGammaAdjust); negative values become 0 first. Images or planes.
struct PowerFilter: PointwiseFilter {
    static let info = FilterInfo(name: "gammaAdjust", coreImageName: "CIGammaAdjust", summary: "x^power per channel.",
                                 parameters: [ParameterInfo("power", label: "Power", range: 0.01...20, default: 1, doc: "Exponent.")])
    let power: Float
    var parameterKey: String { "p=\(power)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        try Self.info.validate("power", Double(power))
        return inputs[0]
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0], p = power
        for i in 0..<(count * outputChannels) {
            let v = src[i]
            output[i] = v > 0 ? (p == 0.5 ? v.squareRoot() : powf(v, p)) : 0
        }
    }
}

/// max(r, g, b) in all three channels (CIMaximumComponent).
struct MaximumComponentFilter: PointwiseFilter {
    static let info = FilterInfo(name: "maximumComponent", coreImageName: "CIMaximumComponent", summary: "Grey of max(r, g, b).")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0]
        for i in 0..<count {
            let m = max(src[i * 3], max(src[i * 3 + 1], src[i * 3 + 2]))
            output[i * 3] = m; output[i * 3 + 1] = m; output[i * 3 + 2] = m
        }
    }
}

/// Exposure in stops applied in linear light: decode sRGB, multiply by 2^ev, encode (CIExposureAdjust).
///
/// Values in 0...1 go through a 4096-step table with linear interpolation (within 2e-5 of the exact curve,
/// far below one 8-bit level); anything outside is computed exactly.
struct ExposureFilter: PointwiseFilter {
    static let info = FilterInfo(name: "exposureAdjust", coreImageName: "CIExposureAdjust", summary: "×2^EV in linear light.",
                                 parameters: [ParameterInfo("ev", label: "EV", range: -10...10, default: 0, unit: "EV", doc: "Stops.")])
    static let steps = 4096
    let ev: Float
    private let table: [Float]

    init(ev: Float) {
        self.ev = ev
        let gain = powf(2, ev)
        table = (0...Self.steps).map { srgbEncode(srgbDecode(Float($0) / Float(Self.steps)) * gain) }
    }

    var parameterKey: String { "ev=\(ev)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        try Self.info.validate("ev", Double(ev))
        return .image
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0], gain = powf(2, ev), n = Float(Self.steps)
        table.withUnsafeBufferPointer { t in
            for i in 0..<(count * 3) {
                let v = src[i]
                if v >= 0 && v <= 1 {
                    let x = v * n
                    let k = min(Int(x), Self.steps - 1)
                    output[i] = t[k] + (t[k + 1] - t[k]) * (x - Float(k))
                } else {
                    output[i] = srgbEncode(srgbDecode(v) * gain)
                }
            }
        }
    }
}

/// Core Image's Noir, approximated as the benchmark defines it: Rec.601 luma, contrast 1.5 about mid-grey,
/// +0.5 EV, clipped (the same maths as the peers' P1 foreground).
struct NoirFilter: PointwiseFilter {
    static let info = FilterInfo(name: "photoEffectNoir", coreImageName: "CIPhotoEffectNoir", summary: "High-contrast grey.")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0], lift = Float(2).squareRoot()
        for i in 0..<count {
            let g = 0.299 * src[i * 3] + 0.587 * src[i * 3 + 1] + 0.114 * src[i * 3 + 2]
            let v = min(1, max(0, ((g - 0.5) * 1.5 + 0.5) * lift))
            output[i * 3] = v; output[i * 3 + 1] = v; output[i * 3 + 2] = v
        }
    }
}

/// Vibrance (CIVibrance-like): saturation about the luma scaled by 1 + amount·(1 − current saturation),
/// so muted colours move more than vivid ones. Amount 0 is the identity.
struct VibranceFilter: PointwiseFilter {
    static let info = FilterInfo(name: "vibrance", coreImageName: "CIVibrance", summary: "Saturate muted colours more.",
                                 parameters: [ParameterInfo("amount", label: "Amount", range: -1...1, default: 0, doc: "Strength.")])
    let amount: Float
    var parameterKey: String { "a=\(amount)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        try Self.info.validate("amount", Double(amount))
        return .image
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        let src = inputs[0]
        for i in 0..<count {
            let r = src[i * 3], g = src[i * 3 + 1], b = src[i * 3 + 2]
            let luma = 0.299 * r + 0.587 * g + 0.114 * b
            let saturation = max(r, max(g, b)) - min(r, min(g, b))
            let k = 1 + amount * (1 - min(1, max(0, saturation)))
            output[i * 3] = luma + (r - luma) * k
            output[i * 3 + 1] = luma + (g - luma) * k
            output[i * 3 + 2] = luma + (b - luma) * k
        }
    }
}

/// A plane times a constant: a mask at partial strength.
struct ScalePlane: PointwiseFilter {
    static let info = FilterInfo(name: "scalePlane", coreImageName: nil, summary: "Plane × factor.")
    let factor: Float
    var parameterKey: String { "k=\(factor)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        for i in 0..<count { output[i] = inputs[0][i] * factor }
    }
}

@inline(__always)
func srgbDecode(_ v: Float) -> Float {
    v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
}

@inline(__always)
func srgbEncode(_ v: Float) -> Float {
    v <= 0.0031308 ? v * 12.92 : 1.055 * powf(v, 1 / 2.4) - 0.055
}

/// Clamps a plane to 0...1: a blurred mask can overshoot 1 by a rounding error, and masks must not.
struct ClampUnit: PointwiseFilter {
    static let info = FilterInfo(name: "clampUnit", coreImageName: "CIColorClamp", summary: "Clamp a plane to 0...1.")
    var parameterKey: String { "" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane])
        return .plane
    }

    func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
               outputChannels: Int, count: Int) {
        for i in 0..<count { output[i] = min(1, max(0, inputs[0][i])) }
    }
}
