/// Edge-preserving upsampling of a low-resolution plane (disparity) guided by the full-resolution image:
/// joint bilateral upsampling (Kopf et al. 2007), the idea behind CIEdgePreserveUpsampleFilter.
///
/// Output pixel p sits at position ℓ(p) in the low-resolution plane. It averages the valid low-resolution
/// samples q within `radius` of ℓ(p) with weight
///   exp(−|ℓ(p) − q|² / 2σs²) · exp(−|I(p) − I(q)|² / 2σr²)
/// where I(q) is the guide's colour at q's centre. So depth edges snap to the image's edges instead of
/// being smoothed across them as bilinear or bicubic interpolation does. Holes are skipped; NaN only when
/// every sample is a hole.
public struct JointBilateralUpsample: Filter {
    public static let info = FilterInfo(
        name: "jointBilateralUpsample", coreImageName: "CIEdgePreserveUpsampleFilter",
        summary: "Upsample a plane to the guide image's size, keeping its edges on the image's edges.",
        parameters: [
            ParameterInfo("sigmaSpatial", range: 0.25...8, unit: "px",
                          doc: "Gaussian fall-off with distance, in low-resolution pixels."),
            ParameterInfo("sigmaRange", range: 0.005...1,
                          doc: "Gaussian fall-off with colour difference (0...1 sRGB units); smaller keeps edges harder."),
            ParameterInfo("radius", range: 1...8, unit: "px",
                          doc: "Low-resolution neighbours considered on each side."),
        ])

    public let sigmaSpatial: Double
    public let sigmaRange: Double
    public let radius: Int

    public init(sigmaSpatial: Double = 1, sigmaRange: Double = 0.06, radius: Int = 2) throws {
        try Self.info.validate("sigmaSpatial", sigmaSpatial)
        try Self.info.validate("sigmaRange", sigmaRange)
        try Self.info.validate("radius", Double(radius))
        self.sigmaSpatial = sigmaSpatial
        self.sigmaRange = sigmaRange
        self.radius = radius
    }

    public var parameterKey: String { "s=\(sigmaSpatial),r=\(sigmaRange),k=\(radius)" }

    /// Inputs: the low-resolution plane, then the guide image. The output has the guide's extent.
    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.plane, .image])
        return .plane
    }

    public func extent(inputs: [PixelSize]) -> PixelSize { inputs.count > 1 ? inputs[1] : (inputs.first ?? PixelSize(width: 1, height: 1)) }

    /// The plane stays at its native resolution unless the render is smaller than that.
    static func lowSize(_ target: RenderTarget, extent: PixelSize, planeExtent: PixelSize) -> PixelSize {
        let scaled = planeExtent.scaled(by: Double(target.size.width) / Double(extent.width))
        return scaled.width < planeExtent.width ? scaled : planeExtent
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let low = Self.lowSize(target, extent: extent, planeExtent: inputExtents[0])
        let ratio = Double(target.size.width) / Double(low.width)
        let r = target.region
        let lowRegion = PixelRect(x: Int((Double(r.x) / ratio).rounded(.down)) - radius - 1,
                                  y: Int((Double(r.y) * Double(low.height) / Double(target.size.height)).rounded(.down)) - radius - 1,
                                  width: Int((Double(r.width) / ratio).rounded(.up)) + 2 * radius + 3,
                                  height: Int((Double(r.height) * Double(low.height) / Double(target.size.height)).rounded(.up)) + 2 * radius + 3)
        let margin = Int((ratio * Double(radius + 2)).rounded(.up))
        return [RenderTarget(size: low, region: lowRegion), grown(target, by: margin)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let plane = inputs[0], guide = inputs[1]
        let region = request.region, size = request.target.size
        let low = request.inputTargets[0].size
        let rx = Double(size.width) / Double(low.width), ry = Double(size.height) / Double(low.height)
        let pr = plane.region, gr = guide.region
        let ss = Float(1 / (2 * sigmaSpatial * sigmaSpatial)), sr = Float(1 / (2 * sigmaRange * sigmaRange))
        let k = radius
        return PixelBuffer(region: region, channels: 1) { out in
            let o = SendablePointer(out.baseAddress!)
            context.parallelRows(region.height) { rows in
                for row in rows {
                    let y = region.y + row
                    let ly = (Double(y) + 0.5) / ry - 0.5
                    for col in 0..<region.width {
                        let x = region.x + col
                        let lx = (Double(x) + 0.5) / rx - 0.5
                        let gi = ((y - gr.y) * gr.width + (x - gr.x)) * 3
                        let c0 = guide.samples[gi], c1 = guide.samples[gi + 1], c2 = guide.samples[gi + 2]
                        let bx = Int(lx.rounded(.down)), by = Int(ly.rounded(.down))
                        var acc: Float = 0, wsum: Float = 0
                        for qy in max(pr.y, by - k + 1)...max(pr.y, min(pr.maxY - 1, by + k)) {
                            for qx in max(pr.x, bx - k + 1)...max(pr.x, min(pr.maxX - 1, bx + k)) {
                                let v = plane.samples[(qy - pr.y) * pr.width + (qx - pr.x)]
                                if v.isNaN { continue }
                                let dx = Float(lx - Double(qx)), dy = Float(ly - Double(qy))
                                // The guide's colour at q's centre, clamped into the rendered guide.
                                let gx = min(gr.maxX - 1, max(gr.x, Int(((Double(qx) + 0.5) * rx).rounded(.down))))
                                let gy = min(gr.maxY - 1, max(gr.y, Int(((Double(qy) + 0.5) * ry).rounded(.down))))
                                let gq = ((gy - gr.y) * gr.width + (gx - gr.x)) * 3
                                let e0 = guide.samples[gq] - c0, e1 = guide.samples[gq + 1] - c1, e2 = guide.samples[gq + 2] - c2
                                let w = expf(-(dx * dx + dy * dy) * ss - (e0 * e0 + e1 * e1 + e2 * e2) * sr)
                                acc += w * v
                                wsum += w
                            }
                        }
                        o.pointer[row * region.width + col] = wsum > 0 ? acc / wsum : .nan
                    }
                }
            }
        }
    }
}

/// A zoom crop: the output shows a window of its input rendered `zoom` times larger, so details can be
/// compared pixel for pixel (the 2017 talk's upsampling comparison zooms into a small area).
///
/// The input is rendered at (output size × zoom) for the window only; the window is centred on the
/// normalised point (x, y) and kept inside the frame.
public struct ZoomCrop: OneInputFilter {
    public static let placement = PixelPlacement.moved
    public static let info = FilterInfo(
        name: "zoomCrop", coreImageName: "CICrop + CIAffineTransform",
        summary: "Magnify a window of the input around a point.",
        parameters: [
            ParameterInfo("zoom", range: 1...32, doc: "Magnification."),
            ParameterInfo("x", range: 0...1, doc: "Window centre, normalised."),
            ParameterInfo("y", range: 0...1, doc: "Window centre, normalised."),
        ])

    public let zoom: Double
    public let x: Double
    public let y: Double

    public init(zoom: Double, x: Double, y: Double) throws {
        try Self.info.validate("zoom", zoom)
        try Self.info.validate("x", x)
        try Self.info.validate("y", y)
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    public var parameterKey: String { "z=\(zoom),x=\(x),y=\(y)" }

    /// The zoomed frame size and the window's offset in it.
    func window(_ size: PixelSize) -> (size: PixelSize, dx: Int, dy: Int) {
        let big = size.scaled(by: zoom)
        let dx = min(big.width - size.width, max(0, Int((x * Double(big.width) - Double(size.width) / 2).rounded())))
        let dy = min(big.height - size.height, max(0, Int((y * Double(big.height) - Double(size.height) / 2).rounded())))
        return (big, dx, dy)
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let w = window(target.size), r = target.region
        return [RenderTarget(size: w.size, region: PixelRect(x: r.x + w.dx, y: r.y + w.dy, width: r.width, height: r.height))]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        PixelBuffer(region: request.region, channels: inputs[0].channels, samples: inputs[0].samples)
    }
}

import func Foundation.expf
