import func Foundation.exp2

/// Exposure in EV applied in linear light: decode sRGB, multiply by 2^EV, encode (not clamped).
/// Core Image: CIExposureAdjust.
///
/// Samples in 0...1 (nearly all of a photo) read a 16384-step table with linear interpolation, within 2e-6
/// of the exact curve and two `powf` calls cheaper per sample; anything outside is computed exactly.
public struct Exposure: PointwiseFilter {
    public static let info = FilterInfo(
        name: "exposure", coreImageName: "CIExposureAdjust",
        summary: "Brighten or darken by EV stops, in linear light.",
        parameters: [ParameterInfo("ev", range: -10...10, unit: "EV",
                                   doc: "Stops: +1 doubles the light, −1 halves it (CIExposureAdjust's inputEV).")])

    public let ev: Double
    static let steps = 16384
    private let table: [Float]

    public init(ev: Double) throws {
        try Self.info.validate("ev", ev)
        self.ev = ev
        table = Self.table(ev: ev)
    }

    /// Recently made tables by EV. A recipe is rebuilt for every render, and making a table costs 33k `powf`
    /// (a tenth of a 736-px drag frame's server time before this memo); a slider visits a few values again and again.
    private static let tables = Locked([Double: [Float]]())

    private static func table(ev: Double) -> [Float] {
        if let known = tables.withLock({ $0[ev] }) { return known }
        let gain = Float(exp2(ev)), n = Float(steps)
        let made = (0...steps).map { SRGBTransfer.encode(SRGBTransfer.decode(Float($0) / n) * gain) }
        tables.withLock { t in
            if t.count >= 64 { t.removeAll() }
            t[ev] = made
        }
        return made
    }

    public var parameterKey: String { "ev=\(ev)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], gain = Float(exp2(ev)), n = Float(Self.steps), last = Self.steps - 1
        table.withUnsafeBufferPointer { t in
            for i in 0..<(count * 3) {
                let v = src[i]
                if v >= 0 && v <= 1 {
                    let x = v * n
                    let k = min(Int(x), last)
                    output[i] = t[k] + (t[k + 1] - t[k]) * (x - Float(k))
                } else {
                    output[i] = SRGBTransfer.encode(SRGBTransfer.decode(v) * gain)
                }
            }
        }
    }
}
