import DepthbookEngine

/// A bundled background painted at the size rendered (`BackgroundLibrary`): a preview paints 0.4 MP, an
/// export the photo's 12 MP, each as sharp as its own pixels. Made once at 1600 px and enlarged, the
/// mountains' ridges showed 2.5-px stairs in a full-size export.
struct BackgroundFilter: Filter {
    static let info = FilterInfo(name: "bundledBackground", coreImageName: nil,
                                 summary: "One of Depthbook's generated backgrounds, painted at the render's size.")

    let id: String
    /// The native size the background stands for (the photo's).
    let size: PixelSize
    private let paint: BackgroundLibrary.Painter

    init(id: String, size: PixelSize) throws(EffectError) {
        guard let paint = BackgroundLibrary.painter(id: id, aspect: Double(size.width) / Double(max(1, size.height))) else {
            throw .badInput(effect: "backgroundImage", message: "there is no bundled background \"\(id)\"")
        }
        self.id = id
        self.size = size
        self.paint = paint
    }

    var parameterKey: String { "id=\(id),size=\(size.width)x\(size.height)" }

    func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [])
        return .image
    }

    func extent(inputs: [PixelSize]) -> PixelSize { size }

    func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let frame = request.target.size, region = request.region
        let pixel = 1 / Double(frame.height), paint = paint
        return PixelBuffer(region: region, channels: 3) { out in
            let base = SendableOutput(out.baseAddress!)
            context.parallelRows(region.height, samplesPerRow: region.width * 3) { rows in
                for row in rows {
                    let v = (Double(region.y + row) + 0.5) * pixel
                    for column in 0..<region.width {
                        let c = paint((Double(region.x + column) + 0.5) / Double(frame.width), v, pixel)
                        let i = (row * region.width + column) * 3
                        for k in 0..<3 { base.pointer[i + k] = Float(max(0, min(1, c[k]))) }
                    }
                }
            }
        }
    }
}
