/// Pinhole intrinsics of a plane in its own pixels: focal lengths and principal point.
public struct PinholeIntrinsics: Sendable, Equatable {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
    }

    /// The calibration's intrinsics rescaled to a plane of `size` covering the same field of view.
    public init(_ calibration: CameraCalibration, size: PixelSize) {
        let k = calibration.intrinsics(forWidth: size.width, height: size.height)
        self.init(fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy)
    }

    /// A guess for photos without calibration: a 60° horizontal field of view, centred principal point.
    public static func assumed(size: PixelSize) -> PinholeIntrinsics {
        let f = Double(size.width) / (2 * 0.5773502691896258)  // tan 30°
        return PinholeIntrinsics(fx: f, fy: f, cx: Double(size.width) / 2, cy: Double(size.height) / 2)
    }

    /// The same camera for a plane `factor` times larger.
    public func scaled(by factor: Double) -> PinholeIntrinsics {
        PinholeIntrinsics(fx: fx * factor, fy: fy * factor, cx: cx * factor, cy: cy * factor)
    }
}

/// A coloured point cloud unprojected from a depth plane, one point per valid depth pixel.
///
/// Pixel (i, j) of the depth plane, centre (u, v) = (i + 0.5, j + 0.5), depth Z, becomes
///   X = (u − cx)·Z/fx,  Y = (v − cy)·Z/fy,  Z
/// with the intrinsics rescaled to the depth plane. Holes (NaN, or Z ≤ 0) give no point: the TrueDepth
/// streamer's fragment shader discards them. The colour is the image's pixel at the same place.
public struct PointCloud: Sendable {
    public var x: [Float]
    public var y: [Float]
    public var z: [Float]
    /// RGB, 3 values per point.
    public var colors: [Float]
    /// The depth pixel each point came from (row-major index).
    public var sourcePixel: [Int32]

    public var count: Int { z.count }

    /// Unprojects `depth` (1 channel, metres or any positive unit) with colours from `image` (3 channels,
    /// the same frame size and region as `depth`).
    public init(depth: PixelBuffer, image: PixelBuffer, intrinsics k: PinholeIntrinsics) throws {
        guard depth.channels == 1, image.channels == 3, depth.region == image.region else {
            throw RenderError.badInputs(filter: "pointCloud", message: "needs a depth plane and an image of the same region")
        }
        x = []; y = []; z = []; colors = []; sourcePixel = []
        let r = depth.region
        let ifx = 1 / k.fx, ify = 1 / k.fy
        for j in 0..<r.height {
            let v = Double(r.y + j) + 0.5
            for i in 0..<r.width {
                let p = j * r.width + i
                let d = depth.samples[p]
                if d.isNaN || !(d > 0) || d.isInfinite { continue }
                let u = Double(r.x + i) + 0.5
                x.append(Float((u - k.cx) * Double(d) * ifx))
                y.append(Float((v - k.cy) * Double(d) * ify))
                z.append(d)
                colors.append(image.samples[p * 3]); colors.append(image.samples[p * 3 + 1]); colors.append(image.samples[p * 3 + 2])
                sourcePixel.append(Int32(p))
            }
        }
    }
}

/// Renders a point cloud from a virtual viewpoint orbiting the scene: the TrueDepth streamer's 3-D view.
///
/// The cloud is turned about a pivot on the optical axis at `pivotDepth` (the subject's, as the effects pass
/// it; the median depth when not given) (yaw about the vertical
/// axis, then pitch about the horizontal one), the camera backs away by `distance` × pivot depth, and each
/// point is projected with the original camera's intrinsics (rescaled to the output) as a square splat
/// whose side covers one depth pixel at its original depth and shrinks with distance; a z-buffer keeps the
/// nearest. With no orbit and no distance every point lands back on its own pixel: the image at the depth
/// plane's resolution, holes black.
public struct PointCloudRender: Filter {
    public static let placement = PixelPlacement.unfollowable
    public static let info = FilterInfo(
        name: "pointCloud", coreImageName: nil,
        summary: "Unproject depth with the intrinsics, discard holes, splat coloured points from an orbiting viewpoint.",
        parameters: [
            ParameterInfo("yaw", range: -180...180, unit: "°",
                          doc: "Rotation of the cloud about the vertical axis through the pivot."),
            ParameterInfo("pitch", range: -90...90, unit: "°",
                          doc: "Rotation about the horizontal axis through the pivot."),
            ParameterInfo("distance", range: -0.9...10,
                          doc: "How far the camera backs away, as a fraction of the pivot depth (negative moves in)."),
            ParameterInfo("pointSize", range: 0.25...8,
                          doc: "Splat side in depth pixels at the point's original depth."),
            ParameterInfo("fx", range: 1e-3...1e7, unit: "px", doc: "Focal length x, native image pixels."),
            ParameterInfo("fy", range: 1e-3...1e7, unit: "px", doc: "Focal length y, native image pixels."),
            ParameterInfo("cx", range: -1e7...1e7, unit: "px", doc: "Principal point x, native image pixels."),
            ParameterInfo("cy", range: -1e7...1e7, unit: "px", doc: "Principal point y, native image pixels."),
        ])

    public let yaw: Double
    public let pitch: Double
    public let distance: Double
    public let pointSize: Double
    /// Intrinsics in native image pixels (the output's extent).
    public let intrinsics: PinholeIntrinsics
    /// The depth (in the depth plane's units) of the point the orbit turns about; nil: the cloud's median.
    public let pivotDepth: Double?

    public init(yaw: Double, pitch: Double, distance: Double, pointSize: Double = 1, intrinsics: PinholeIntrinsics,
                pivotDepth: Double? = nil) throws {
        let i = Self.info
        try i.validate("yaw", yaw)
        try i.validate("pitch", pitch)
        try i.validate("distance", distance)
        try i.validate("pointSize", pointSize)
        try i.validate("fx", intrinsics.fx)
        try i.validate("fy", intrinsics.fy)
        try i.validate("cx", intrinsics.cx)
        try i.validate("cy", intrinsics.cy)
        self.yaw = yaw
        self.pitch = pitch
        self.distance = distance
        self.pointSize = pointSize
        self.intrinsics = intrinsics
        self.pivotDepth = pivotDepth.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }

    public var parameterKey: String {
        "yaw=\(yaw),pitch=\(pitch),d=\(distance),s=\(pointSize),k=\(intrinsics.fx),\(intrinsics.fy),\(intrinsics.cx),\(intrinsics.cy),"
            + "pivot=\(pivotDepth.map { String($0) } ?? "median")"
    }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        return .image
    }

    public func rendersWholeFrame(for target: RenderTarget, extent: PixelSize) -> Bool { true }

    /// The depth plane's size at this render: its native size, reduced for previews smaller than the image, but
    /// to no fewer points across than half the output's pixels (as `Resample` reads an enlarged input): at the
    /// photo's scale a 768-px depth map gave a 320-px preview of a 12 MP photo 61 points across, all blocks.
    func cloudSize(_ target: RenderTarget, extent: PixelSize, depthExtent: PixelSize) -> PixelSize {
        let scale = min(1, Double(target.size.width) / Double(extent.width))
        let least = min(1, Resample.leastInputShare * Double(target.size.width) / Double(depthExtent.width))
        return depthExtent.scaled(by: max(scale, least))
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let size = cloudSize(target, extent: extent, depthExtent: inputExtents[1])
        return [RenderTarget(size: size), RenderTarget(size: size)]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let image = inputs[0], depth = inputs[1]
        let cloudSize = depth.region.size
        let outSize = request.target.size
        let kCloud = intrinsics.scaled(by: Double(cloudSize.width) / Double(request.extent.width))
        let kOut = intrinsics.scaled(by: request.scale)
        let cloud = try PointCloud(depth: depth, image: image, intrinsics: kCloud)
        try context.checkCancelled()
        var out = PixelBuffer(region: PixelRect(outSize), channels: 3, repeating: 0)
        guard cloud.count > 0 else { return out.cropped(to: request.region) }
        let pivot = pivotDepth ?? Double(median(cloud.z))
        let (cy, sy) = (cos(yaw * .pi / 180), sin(yaw * .pi / 180))
        let (cp, sp) = (cos(pitch * .pi / 180), sin(pitch * .pi / 180))
        let back = distance * pivot
        let pixelRatio = Double(outSize.width) / Double(cloudSize.width)
        var zbuf = [Float](repeating: .infinity, count: outSize.pixelCount)
        let w = outSize.width, h = outSize.height
        out.samples.withUnsafeMutableBufferPointer { o in
            for n in 0..<cloud.count {
                // Into pivot coordinates, yaw about Y, pitch about X, back out, camera moved back.
                let px = Double(cloud.x[n]), py = Double(cloud.y[n]), pz = Double(cloud.z[n]) - pivot
                let x1 = cy * px + sy * pz, z1 = -sy * px + cy * pz
                let y2 = cp * py - sp * z1, z2 = sp * py + cp * z1
                let zc = z2 + pivot + back
                if zc <= pivot * 1e-3 { continue }
                let u = kOut.fx * x1 / zc + kOut.cx, v = kOut.fy * y2 / zc + kOut.cy
                let side = pointSize * pixelRatio * Double(cloud.z[n]) / zc
                let half = side / 2
                // A point just in front of the camera lands arbitrarily far away (or at NaN from a hole): skip
                // it before any integer conversion, which would trap.
                guard u.isFinite, v.isFinite, half.isFinite, abs(u) < 1e7, abs(v) < 1e7, half < 1e7 else { continue }
                let x0 = max(0, Int((u - half - 0.5).rounded(.up))), xe = min(w - 1, Int((u + half - 0.5).rounded(.up)) - 1)
                let y0 = max(0, Int((v - half - 0.5).rounded(.up))), ye = min(h - 1, Int((v + half - 0.5).rounded(.up)) - 1)
                if x0 > xe || y0 > ye { continue }
                let depthValue = Float(zc)
                for yy in y0...ye {
                    for xx in x0...xe {
                        let i = yy * w + xx
                        if depthValue < zbuf[i] {
                            zbuf[i] = depthValue
                            o[i * 3] = cloud.colors[n * 3]
                            o[i * 3 + 1] = cloud.colors[n * 3 + 1]
                            o[i * 3 + 2] = cloud.colors[n * 3 + 2]
                        }
                    }
                }
            }
        }
        return out.cropped(to: request.region)
    }

    /// The median of the values (the lower middle one for an even count).
    func median(_ values: [Float]) -> Float {
        var copy = values
        copy.sort()
        return copy[(copy.count - 1) / 2]
    }
}

import func Foundation.cos
import func Foundation.sin
