import Foundation

/// Mean of 2R + 1 bilinear samples along a line through each pixel (R = radius, step one pixel), edges
/// clamped. Core Image: CIMotionBlur (inputRadius, inputAngle).
public struct MotionBlur: OneInputFilter {
    public static let info = FilterInfo(
        name: "motionBlur", coreImageName: "CIMotionBlur",
        summary: "Blur along a direction, as if the camera moved during the exposure.",
        parameters: [
            ParameterInfo("radius", range: 0...200, unit: "px",
                          doc: "Half length of the streak in native pixels (rounded after scaling)."),
            ParameterInfo("angle", range: -360...360, unit: "°",
                          doc: "Direction of motion; 0 is horizontal, 90 vertical (image y grows downwards)."),
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

    func reach(_ scale: Double) -> Int { Int((radius * scale).rounded()) }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [grown(target, by: reach(Double(target.size.width) / Double(extent.width)) + 1)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, frame = request.target.frame
        let r = reach(request.scale), ch = input.channels, inR = input.region
        let dx = cos(angle * .pi / 180), dy = sin(angle * .pi / 180)
        let inv = 1 / Float(2 * r + 1)
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            input.samples.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                context.parallelRows(region.height) { rows in
                    var acc = [Float](repeating: 0, count: ch)
                    for y in rows {
                        for x in 0..<region.width {
                            for c in 0..<ch { acc[c] = 0 }
                            for t in -r...r {
                                let px = Double(region.x + x) + Double(t) * dx, py = Double(region.y + y) + Double(t) * dy
                                let x0 = Int(floorSaturating: px), y0 = Int(floorSaturating: py)
                                let fx = Float(px - Double(x0)), fy = Float(py - Double(y0))
                                let xa = min(frame.maxX - 1, max(0, x0)) - inR.x, xb = min(frame.maxX - 1, max(0, x0 + 1)) - inR.x
                                let ya = min(frame.maxY - 1, max(0, y0)) - inR.y, yb = min(frame.maxY - 1, max(0, y0 + 1)) - inR.y
                                for c in 0..<ch {
                                    let a = s[(ya * inR.width + xa) * ch + c], b = s[(ya * inR.width + xb) * ch + c]
                                    let d = s[(yb * inR.width + xa) * ch + c], e = s[(yb * inR.width + xb) * ch + c]
                                    acc[c] += (a + (b - a) * fx) * (1 - fy) + (d + (e - d) * fx) * fy
                                }
                            }
                            for c in 0..<ch { o.pointer[(y * region.width + x) * ch + c] = acc[c] * inv }
                        }
                    }
                }
            }
        }
    }
}
