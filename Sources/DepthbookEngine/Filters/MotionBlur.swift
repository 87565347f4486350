/// Motion blur: the mean of the input along a straight segment through each pixel, as a camera moving
/// in a straight line during the exposure records it. Core Image: CIMotionBlur (inputRadius, inputAngle).
///
/// 2⌈r⌉ + 1 taps spaced evenly from −r to +r along the angle (0° = horizontal), read bilinearly with the
/// frame edge clamped. `radius` is in native pixels and scales with the render.
public struct MotionBlur: Filter {
    public static let info = FilterInfo(
        name: "motionBlur", coreImageName: "CIMotionBlur",
        summary: "Average along a line at an angle: a streak of movement.",
        parameters: [
            ParameterInfo("radius", label: "Length", range: 0...500, default: 20, unit: "px",
                          doc: "Half the streak length, native pixels."),
            ParameterInfo("angle", label: "Angle", range: -180...180, default: 0, unit: "°",
                          doc: "Direction of the movement; 0 is horizontal."),
        ])

    public let radius: Double
    public let angle: Double

    public init(radius: Double, angle: Double) throws {
        try Self.info.validate("radius", radius)
        try Self.info.validate("angle", angle)
        self.radius = radius
        self.angle = angle
    }

    public var parameterKey: String { "r=\(radius),a=\(angle)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        guard inputs.count == 1 else { throw RenderError.badInputs(filter: Self.info.name, message: "expects one input") }
        return inputs[0]
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [grown(target, by: Int((radius * Double(target.size.width) / Double(extent.width)).rounded(.up)) + 2)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region
        let r = radius * request.scale
        if r < 0.5 { return input.cropped(to: region) }
        let ch = input.channels
        let taps = 2 * Int(r.rounded(.up)) + 1
        let dx = Float(cos(angle * .pi / 180)), dy = Float(sin(angle * .pi / 180))
        let steps = (0..<taps).map { Float(-r + 2 * r * Double($0) / Double(taps - 1)) }
        let norm = 1 / Float(taps)
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                var sample = [Float](repeating: 0, count: ch)
                var acc = [Float](repeating: 0, count: ch)
                for row in rows {
                    let y = Float(region.y + row) + 0.5
                    for col in 0..<region.width {
                        let x = Float(region.x + col) + 0.5
                        for k in 0..<ch { acc[k] = 0 }
                        for t in steps {
                            sample.withUnsafeMutableBufferPointer { input.sampleBilinear(x + t * dx, y + t * dy, into: $0.baseAddress!) }
                            for k in 0..<ch { acc[k] += sample[k] }
                        }
                        let to = (row * region.width + col) * ch
                        for k in 0..<ch { o.pointer[to + k] = acc[k] * norm }
                    }
                }
            }
        }
    }
}

import func Foundation.cos
import func Foundation.sin
