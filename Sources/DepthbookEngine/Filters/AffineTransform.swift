/// Moves the picture by an affine map of native pixel coordinates, sampling bilinearly with the edge clamped
/// (clamp-to-extent); the frame keeps its size. Core Image: CIAffineTransform (+ clampedToExtent).
///
/// A point p of the input lands at (a·px + c·py + tx, b·px + d·py + ty) (CGAffineTransform's layout);
/// each output pixel centre is mapped back through the inverse. The translation scales with the render.
public struct AffineTransform: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "affineTransform", coreImageName: "CIAffineTransform",
        summary: "Rotate, scale, shear or shift the picture within its frame (bilinear, edges clamped).",
        parameters: ["a", "b", "c", "d", "tx", "ty"].map { name in
            ParameterInfo(name, range: -1e6...1e6,
                          unit: name.hasPrefix("t") ? "px" : "",
                          doc: name.hasPrefix("t") ? "Translation in native pixels." : "Linear part (CGAffineTransform.\(name)).")
        })

    public let a, b, c, d, tx, ty: Double

    /// Throws when the linear part cannot be inverted.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) throws {
        for (name, v) in zip(["a", "b", "c", "d", "tx", "ty"], [a, b, c, d, tx, ty]) { try Self.info.validate(name, v) }
        guard abs(a * d - b * c) > 1e-12 else {
            throw RenderError.badParameter(filter: Self.info.name, name: "a,b,c,d", message: "the matrix is not invertible")
        }
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public var parameterKey: String { "\(a),\(b),\(c),\(d),\(tx),\(ty)" }

    /// Input position (continuous, pixel centres at +0.5) of output position (x, y) at render scale `s`.
    func source(_ x: Double, _ y: Double, scale s: Double) -> (Double, Double) {
        let det = a * d - b * c
        let u = x - tx * s, v = y - ty * s
        return ((d * u - c * v) / det, (-b * u + a * v) / det)
    }

    func inputRegion(_ region: PixelRect, frame: PixelRect, scale: Double) -> PixelRect {
        let corners = [(region.x, region.y), (region.maxX, region.y), (region.x, region.maxY), (region.maxX, region.maxY)]
            .map { source(Double($0.0), Double($0.1), scale: scale) }
        let clampX = { (v: Double) in min(frame.maxX - 1, max(0, Int(floorSaturating: v))) }
        let clampY = { (v: Double) in min(frame.maxY - 1, max(0, Int(floorSaturating: v))) }
        let x0 = clampX(corners.map(\.0).min()! - 1), x1 = clampX(corners.map(\.0).max()! + 1)
        let y0 = clampY(corners.map(\.1).min()! - 1), y1 = clampY(corners.map(\.1).max()! + 1)
        return PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let scale = Double(target.size.width) / Double(extent.width)
        return [target.with(region: inputRegion(target.region, frame: target.frame, scale: scale))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let input = inputs[0], region = request.region, scale = request.scale, inR = input.region
        let ch = input.channels
        return PixelBuffer(region: region, channels: ch) { out in
            let o = SendablePointer(out.baseAddress!)
            input.samples.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                context.parallelRows(region.height) { rows in
                    for y in rows {
                        for x in 0..<region.width {
                            let (px, py) = source(Double(region.x + x) + 0.5, Double(region.y + y) + 0.5, scale: scale)
                            let sx = px - 0.5, sy = py - 0.5
                            let x0 = Int(floorSaturating: sx), y0 = Int(floorSaturating: sy)
                            let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                            let xa = min(inR.maxX - 1, max(inR.x, x0)) - inR.x, xb = min(inR.maxX - 1, max(inR.x, x0 + 1)) - inR.x
                            let ya = min(inR.maxY - 1, max(inR.y, y0)) - inR.y, yb = min(inR.maxY - 1, max(inR.y, y0 + 1)) - inR.y
                            for c in 0..<ch {
                                let p = s[(ya * inR.width + xa) * ch + c], q = s[(ya * inR.width + xb) * ch + c]
                                let u = s[(yb * inR.width + xa) * ch + c], v = s[(yb * inR.width + xb) * ch + c]
                                o.pointer[(y * region.width + x) * ch + c] = (p + (q - p) * fx) * (1 - fy) + (u + (v - u) * fx) * fy
                            }
                        }
                    }
                }
            }
        }
    }
}
