/// Core Image's photo-effect presets as documented approximations (Apple publishes no formulas): each is
/// a 3×4 colour matrix on the stored sRGB values followed by a contrast curve about 0.5 and a clamp.
///
/// - mono (CIPhotoEffectMono): Rec.601 luma.
/// - noir (CIPhotoEffectNoir): luma, contrast ×1.5 (hard blacks and whites).
/// - tonal (CIPhotoEffectTonal): luma, contrast ×0.9 (soft grey).
/// - fade (CIPhotoEffectFade): saturation ×0.7, blacks lifted to 0.1, whites down to 0.9.
/// - chrome (CIPhotoEffectChrome): saturation ×1.25, contrast ×1.1.
/// - instant (CIPhotoEffectInstant): saturation ×0.85, warm cast (R +0.04, B −0.05), blacks lifted to 0.05.
/// - process (CIPhotoEffectProcess): cross-processed: R ×1.1, G ×1.05, B ×0.85 + 0.08, contrast ×1.1.
/// - transfer (CIPhotoEffectTransfer): vintage: 30 % sepia mixed in, blacks lifted to 0.04.
public struct PhotoEffect: PointwiseFilter {
    public enum Style: String, Sendable, CaseIterable {
        case mono, noir, tonal, fade, chrome, instant, process, transfer
    }

    public static let info = FilterInfo(
        name: "photoEffect", coreImageName: "CIPhotoEffectMono/Noir/Tonal/Fade/Chrome/Instant/Process/Transfer",
        summary: "One of Core Image's photo-effect looks, approximated by a colour matrix and a contrast curve.")

    public let style: Style
    let matrix: [Float]
    let contrast: Float

    public init(_ style: Style) {
        self.style = style
        let y: [Float] = Luma.weights.map { Float($0) }
        func saturation(_ s: Float) -> [Float] {
            var m = [Float](repeating: 0, count: 12)
            for row in 0..<3 {
                for col in 0..<3 {
                    let diagonal: Float = row == col ? s : 0
                    m[row * 4 + col] = diagonal + (1 - s) * y[col]
                }
            }
            return m
        }
        func lift(_ m: [Float], _ lo: Float, _ hi: Float) -> [Float] {
            var out = m.map { $0 * (hi - lo) }
            for row in 0..<3 { out[row * 4 + 3] += lo }
            return out
        }
        switch style {
        case .mono: matrix = saturation(0); contrast = 1
        case .noir: matrix = saturation(0); contrast = 1.5
        case .tonal: matrix = saturation(0); contrast = 0.9
        case .fade: matrix = lift(saturation(0.7), 0.1, 0.9); contrast = 1
        case .chrome: matrix = saturation(1.25); contrast = 1.1
        case .instant:
            var m = lift(saturation(0.85), 0.05, 1)
            m[3] += 0.04
            m[11] -= 0.05
            matrix = m
            contrast = 1
        case .process:
            matrix = [1.1, 0, 0, 0, 0, 1.05, 0, 0, 0, 0, 0.85, 0.08]
            contrast = 1.1
        case .transfer:
            let sepia: [Float] = [0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0]
            let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]
            matrix = lift(zip(identity, sepia).map { 0.7 * $0 + 0.3 * $1 }, 0.04, 1)
            contrast = 1
        }
    }

    public var parameterKey: String { style.rawValue }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0], m = matrix, c = contrast
        for i in 0..<count {
            let j = i * 3
            let r = src[j], g = src[j + 1], b = src[j + 2]
            for k in 0..<3 {
                let v = m[k * 4] * r + m[k * 4 + 1] * g + m[k * 4 + 2] * b + m[k * 4 + 3]
                output[j + k] = unitClamp((v - 0.5) * c + 0.5)
            }
        }
    }
}
