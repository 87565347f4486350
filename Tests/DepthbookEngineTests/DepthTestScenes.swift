import DepthbookEngine
import DepthbookTestSupport

/// Small synthetic scenes for the depth operator tests: an image, a plane, and helpers to render them.
enum DepthScenes {
    /// Renders `node` whole at its native size.
    static func render(_ node: Node, size: PixelSize? = nil) throws -> PixelBuffer {
        try Evaluator(context: RenderContext(threads: 2)).render(node, RenderTarget(size: size ?? node.extent))
    }

    /// A smooth colour image (gradients and slow waves): bilinear resampling of it is accurate, so warps
    /// and their inverses can be compared pixel by pixel.
    static func smoothImage(width: Int, height: Int) -> Raster<Float> {
        var s = [Float](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let u = Float(x) / Float(width), v = Float(y) / Float(height)
                let i = (y * width + x) * 3
                s[i] = u
                s[i + 1] = 0.5 + 0.4 * sin(6 * u + 3 * v)
                s[i + 2] = v
            }
        }
        return Raster(width: width, height: height, channels: 3, samples: s)
    }

    /// A plane from a closure of (x, y).
    static func plane(width: Int, height: Int, _ value: (Int, Int) -> Float) -> Raster<Float> {
        var s = [Float](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { s[y * width + x] = value(x, y) } }
        return Raster(width: width, height: height, channels: 1, samples: s)
    }
}

import func Foundation.sin
