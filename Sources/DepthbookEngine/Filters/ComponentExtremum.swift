/// Grey image of the largest (or smallest) of R, G, B in every channel.
/// Core Image: CIMaximumComponent / CIMinimumComponent.
public struct ComponentExtremum: PointwiseFilter {
    public static let info = FilterInfo(
        name: "componentExtremum", coreImageName: "CIMaximumComponent / CIMinimumComponent",
        summary: "max(r, g, b) (or min) written to all three channels.")

    public let maximum: Bool

    /// `maximum: true` is CIMaximumComponent, false CIMinimumComponent.
    public init(maximum: Bool = true) {
        self.maximum = maximum
    }

    public var parameterKey: String { maximum ? "max" : "min" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image])
        return .image
    }

    public func apply(inputs: [UnsafePointer<Float>], inputChannels: [Int], output: UnsafeMutablePointer<Float>,
                      outputChannels: Int, count: Int) {
        let src = inputs[0]
        // Swift's max(r, g, b) and min(r, g, b) (including which operand a NaN or a tie returns), written out:
        // the variadic forms do not vectorise.
        if maximum {
            for i in 0..<count {
                let j = i &* 3
                let r = src[j], g = src[j &+ 1], b = src[j &+ 2]
                let rg = g >= r ? g : r
                let v = b >= rg ? b : rg
                output[j] = v
                output[j &+ 1] = v
                output[j &+ 2] = v
            }
        } else {
            for i in 0..<count {
                let j = i &* 3
                let r = src[j], g = src[j &+ 1], b = src[j &+ 2]
                let rg = g < r ? g : r
                let v = b < rg ? b : rg
                output[j] = v
                output[j &+ 1] = v
                output[j &+ 2] = v
            }
        }
    }
}
