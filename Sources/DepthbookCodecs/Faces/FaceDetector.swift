import CDlibFaces
import DepthbookEngine

/// Faces found in the picture itself, for photos whose file names none (HEIC selfies carry no face regions):
/// dlib's frontal face detector (HOG features and a linear classifier, compiled into Debian's libdlib) on a
/// grey copy at most `workingSide` pixels on its longer side, boxes scaled back to the photo's pixels.
public enum FaceDetector {
    /// Portrait faces span a tenth of the frame or more; the detector's smallest face is 80 px, so 800 px
    /// finds them at a twentieth of the cost of a 12 MP picture.
    public static let workingSide = 800
    /// A little above dlib's own cut (0) on its classifier's score: portrait faces score well above 1, and
    /// a lone false face in clutter scored 0.06.
    public static let threshold = 0.3

    /// Frontal faces in `image` (upright RGB), strongest first, at most `limit`.
    public static func faces(in image: RGBImage8, limit: Int = 8) -> [FaceRegion] {
        guard image.width >= 40, image.height >= 40, image.channels >= 3 else { return [] }
        let scale = min(1, Double(workingSide) / Double(max(image.width, image.height)))
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        let grey = greyBoxDownscaled(image, width: width, height: height)
        var found = [dbf_face](repeating: dbf_face(), count: limit)
        let count = grey.withUnsafeBufferPointer { g in
            found.withUnsafeMutableBufferPointer { f in
                dbf_detect_faces(g.baseAddress, Int32(width), Int32(height), Int32(width), threshold, f.baseAddress, Int32(limit))
            }
        }
        guard count > 0 else { return [] }
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        return found.prefix(Int(min(count, Int32(limit)))).map { face in
            // dlib's boxes may reach past the frame edge: keep them inside the picture.
            let x = max(0, Double(face.x) * sx), y = max(0, Double(face.y) * sy)
            let right = min(Double(image.width), Double(face.x + face.width) * sx)
            let bottom = min(Double(image.height), Double(face.y + face.height) * sy)
            return FaceRegion(x: x, y: y, width: max(1, right - x), height: max(1, bottom - y), type: "Face", detected: true)
        }
    }

    /// Rec.601 luma, averaged over each output pixel's box of input pixels (an area filter: no aliasing).
    static func greyBoxDownscaled(_ image: RGBImage8, width: Int, height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        let ch = image.channels
        let w = Luma.thousandths
        image.samples.withUnsafeBufferPointer { src in
            for oy in 0..<height {
                let y0 = oy * image.height / height, y1 = max(y0 + 1, (oy + 1) * image.height / height)
                for ox in 0..<width {
                    let x0 = ox * image.width / width, x1 = max(x0 + 1, (ox + 1) * image.width / width)
                    var sum = 0
                    for y in y0..<y1 {
                        var i = (y * image.width + x0) * ch
                        for _ in x0..<x1 {
                            sum += w.r * Int(src[i]) + w.g * Int(src[i + 1]) + w.b * Int(src[i + 2])
                            i += ch
                        }
                    }
                    out[oy * width + ox] = UInt8(min(255, sum / (1000 * (y1 - y0) * (x1 - x0))))
                }
            }
        }
        return out
    }
}
