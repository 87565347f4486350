/// Parallax from depth: the view a camera sees after a small sideways step, with the focal plane held in
/// place. A pixel of normalised disparity n moves by (dx, dy)·(n − focus): for a lateral camera translation
/// the image shift of a point is proportional to its disparity (f·b/Z), and shifting the frame to keep the
/// focal plane fixed subtracts the focal plane's own shift. The picture is a triangle mesh drawn with a
/// z-buffer (nearer disparity on top); the edges stretch, so a small step never shows black borders.
///
/// One frame of the "Wiggle Me" loop; `WiggleFrames` sweeps (dx, dy) around a circle.
public struct ParallaxShift: Filter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "parallaxShift", coreImageName: nil,
        summary: "Re-render the photo from a camera stepped sideways, the focal plane fixed, z-buffered.",
        parameters: [
            ParameterInfo("dx", range: -1000...1000, unit: "px",
                          doc: "Horizontal shift of the nearest plane relative to the focal plane, native pixels."),
            ParameterInfo("dy", range: -1000...1000, unit: "px",
                          doc: "Vertical shift of the nearest plane relative to the focal plane, native pixels."),
            ParameterInfo("focus", range: 0...1,
                          doc: "Normalised disparity that stays still."),
            ParameterInfo("low", range: -1e9...1e9, doc: "Disparity normalised to 0."),
            ParameterInfo("high", range: -1e9...1e9, doc: "Disparity normalised to 1."),
            ParameterInfo("step", range: 1...32, unit: "px", doc: "Mesh cell size in output pixels."),
        ])

    public let dx: Double
    public let dy: Double
    public let focus: Double
    public let low: Double
    public let high: Double
    public let step: Int

    public init(dx: Double, dy: Double, focus: Double, low: Double, high: Double, step: Int = 2) throws {
        let i = Self.info
        try i.validate("dx", dx)
        try i.validate("dy", dy)
        try i.validate("focus", focus)
        try i.validate("low", low)
        try i.validate("high", high)
        try i.validate("step", Double(step))
        self.dx = dx
        self.dy = dy
        self.focus = focus
        self.low = low
        self.high = high
        self.step = step
    }

    public var parameterKey: String { "d=\(dx),\(dy),f=\(focus),lo=\(low),hi=\(high),step=\(step)" }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        return .image
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        [RenderTarget(size: target.size), RenderTarget(size: target.size)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let image = inputs[0], disparity = inputs[1]
        let size = request.target.size
        let scale = Float(request.scale)
        let span = Float(high - low), inv: Float = span > 0 ? 1 / span : 0
        let lo = Float(low)
        let normalised = PixelBuffer(region: disparity.region, channels: 1,
                                     samples: disparity.samples.map { $0.isNaN ? 0 : min(1, max(0, ($0 - lo) * inv)) })
        let skirt = Float(max(size.width, size.height))
        var mesh = WarpMesh(us: WarpMesh.stops(length: size.width, step: step, skirt: skirt),
                            vs: WarpMesh.stops(length: size.height, step: step, skirt: skirt))
        let sx = Float(dx) * scale, sy = Float(dy) * scale, f = Float(focus)
        var n: Float = 0
        for k in 0..<(mesh.columns * mesh.rows) {
            let u = mesh.u[k], v = mesh.v[k]
            let su = min(Float(size.width) - 0.5, max(0.5, u)), sv = min(Float(size.height) - 0.5, max(0.5, v))
            normalised.sampleBilinear(su, sv, into: &n)
            mesh.x[k] = u + sx * (n - f)
            mesh.y[k] = v + sy * (n - f)
            mesh.z[k] = -n
            mesh.u[k] = min(Float(size.width), max(0, u))
            mesh.v[k] = min(Float(size.height), max(0, v))
        }
        try context.checkCancelled()
        let drawn = MeshRasterizer.draw(mesh, source: image, size: size, clampTexture: image.region, context: context)
        return drawn.buffer.cropped(to: request.region)
    }
}

/// The "Wiggle Me" loop: `count` parallax frames whose camera step goes once around an ellipse, so the
/// last frame leads smoothly back into the first.
public enum WiggleFrames {
    /// The camera steps (dx, dy) of each frame: amplitude · (cos θ, sin θ · aspect), θ = 2πk/count.
    public static func offsets(count: Int, amplitude: Double, vertical: Double) -> [(dx: Double, dy: Double)] {
        (0..<max(0, count)).map { k in
            let theta = 2 * Double.pi * Double(k) / Double(count)
            return (amplitude * cos(theta), amplitude * vertical * sin(theta))
        }
    }

    /// The fewest frames that make a loop. How many a loop may have at most is the caller's bound (the studio's
    /// and the command line's `Limits.exportFrames`): the engine only needs a start and a way back.
    public static let fewestFrames = 2

    /// One node per frame: `ParallaxShift` of `image` by `disparity`, in loop order.
    public static func nodes(image: Node, disparity: Node, count: Int, amplitude: Double, vertical: Double,
                             focus: Double, low: Double, high: Double, step: Int = 2) throws -> [Node] {
        guard count >= fewestFrames else {
            throw RenderError.badParameter(filter: ParallaxShift.info.name, name: "frames",
                                           message: "a loop needs at least \(fewestFrames) frames, not \(count)")
        }
        return try offsets(count: count, amplitude: amplitude, vertical: vertical).map { o in
            try Node(ParallaxShift(dx: o.dx, dy: o.dy, focus: focus, low: low, high: high, step: step), [image, disparity])
        }
    }
}

import func Foundation.cos
import func Foundation.sin
