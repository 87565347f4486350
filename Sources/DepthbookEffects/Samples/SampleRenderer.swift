import Dispatch
import DepthbookEngine

/// Renders a `SampleScene` into a `Photo` laid out the way a phone's portrait capture is: the image at full
/// size, mattes at half size, disparity at a quarter, with intrinsics, a face region and sensor holes.
///
/// Every plane comes from the same tracer, so they agree exactly: a matte is the fraction of its pixel's
/// 16 sub-samples that hit the labels it covers; disparity is `scale / depth` at the depth pixel's centre.
enum SampleRenderer {
    /// Sub-samples per image pixel along each axis (2 × 2 anti-aliases edges and makes mattes soft).
    static let subsamples = 2

    static func render(_ scene: SampleScene, width requested: Int) -> Photo {
        let width = max(16, requested / 4 * 4)
        let height = max(16, Int((Double(scene.height) * Double(width) / Double(scene.width)).rounded()) / 4 * 4)
        let focal = scene.focalPerLongSide * Double(max(width, height))
        let cx = Double(width) / 2, cy = Double(height) / 2

        let image = renderImageAndMattes(scene, width: width, height: height, focal: focal, cx: cx, cy: cy)
        let disparity = renderDisparity(scene, width: width, height: height, focal: focal, cx: cx, cy: cy)

        var calibration = CameraCalibration(intrinsics: [focal, 0, cx, 0, focal, cy, 0, 0, 1],
                                            referenceWidth: Double(width), referenceHeight: Double(height))
        calibration.pixelSize = 0.0014 * 4032 / Double(max(width, height))
        let depth = DepthData(kind: .disparity, map: disparity, accuracy: scene.accuracy, isFiltered: false,
                              quality: "high", calibration: calibration)
        return Photo(image: image.rgb, depth: depth, mattes: image.mattes,
                     faces: faceRegions(scene, focal: focal, cx: cx, cy: cy))
    }

    /// The face's bounding box (brow-line hair to chin), the way the camera's face detector reports it.
    static func faceRegions(_ scene: SampleScene, focal: Double, cx: Double, cy: Double) -> [FaceRegion] {
        guard let p = scene.person else { return [] }
        let z = p.faceDepth
        let left = focal * (p.headCenter.x - p.headRadii.x * 0.92) / z + cx
        let right = focal * (p.headCenter.x + p.headRadii.x * 0.92) / z + cx
        let top = focal * (p.headCenter.y - p.headRadii.y * 0.6) / z + cy
        let bottom = focal * (p.headCenter.y + p.headRadii.y) / z + cy
        return [FaceRegion(x: left, y: top, width: right - left, height: bottom - top, type: "Face")]
    }

    private static func renderImageAndMattes(_ scene: SampleScene, width: Int, height: Int, focal: Double,
                                             cx: Double, cy: Double) -> (rgb: RGBImage8, mattes: [Matte]) {
        let mw = width / 2, mh = height / 2
        let rgb = SharedBuffer<UInt8>(count: width * height * 3, value: 0)
        let mattes = scene.mattes.map { _ in SharedBuffer<Float>(count: mw * mh, value: 0) }
        let n = subsamples, weight = Float(1) / Float(n * n * 4)
        // One matte row (two image rows) per task: tasks never write the same samples.
        parallelFor(count: mh) { my in
            for y in (2 * my)..<(2 * my + 2) {
                for x in 0..<width {
                    var color = Vec3(0, 0, 0)
                    for sy in 0..<n {
                        for sx in 0..<n {
                            let u = Double(x) + (Double(sx) + 0.5) / Double(n)
                            let v = Double(y) + (Double(sy) + 0.5) / Double(n)
                            let s = scene.trace(Vec3((u - cx) / focal, (v - cy) / focal, 1))
                            color += s.color
                            for (k, kind) in scene.mattes.enumerated() where SampleScene.matte(kind, covers: s.label) {
                                mattes[k][my * mw + x / 2] += weight
                            }
                        }
                    }
                    color /= Double(n * n)
                    let grain = (hashUnit(x, y, scene.seed) - 0.5) * 5
                    let o = (y * width + x) * 3
                    for c in 0..<3 {
                        rgb[o + c] = UInt8(max(0, min(255, (color[c] * 255 + grain).rounded())))
                    }
                }
            }
        }
        let planes = zip(scene.mattes, mattes).map { kind, buffer in
            Matte(kind: kind, plane: FloatPlane(width: mw, height: mh, channels: 1, samples: buffer.array()))
        }
        return (RGBImage8(width: width, height: height, channels: 3, samples: rgb.array()), planes)
    }

    private static func renderDisparity(_ scene: SampleScene, width: Int, height: Int, focal: Double,
                                        cx: Double, cy: Double) -> FloatPlane {
        let dw = width / 4, dh = height / 4
        var samples = [Float](repeating: .nan, count: dw * dh)
        for j in 0..<dh {
            for i in 0..<dw {
                // The centre of the 4 × 4 block of image pixels this depth pixel covers.
                let u = Double(4 * i + 2), v = Double(4 * j + 2)
                let s = scene.trace(Vec3((u - cx) / focal, (v - cy) / focal, 1))
                let nx = u / Double(width), ny = v / Double(height)
                let dropped = scene.dropouts.contains { d in
                    let dx = nx - d.x, dy = (ny - d.y) * Double(height) / Double(width)
                    return dx * dx + dy * dy < d.radius * d.radius
                }
                if !s.isDepthHole, !dropped, s.depth.isFinite {
                    samples[j * dw + i] = Float(scene.disparityScale / s.depth)
                }
            }
        }
        return FloatPlane(width: dw, height: dh, channels: 1, samples: samples)
    }
}

/// A fixed-size buffer tasks of `parallelFor` write to at disjoint indices.
final class SharedBuffer<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    let count: Int

    init(count: Int, value: Element) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: value, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }

    func array() -> [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// Runs `body(i)` for every `i` in `0..<count` on all cores.
func parallelFor(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: count) { body($0) }
}
