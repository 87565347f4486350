/// The subject's own colour at a soft matte's edge (colour decontamination). Where a matte lies between 0 and 1
/// the photo mixes the subject with what stands behind it, I = α·F + (1 − α)·B; a treatment of the subject applied
/// to I (more contrast, a brighter exposure) carries the background's light into the subject's rim, a light line
/// around a head in front of a bright wall. Apple's matte also sits a pixel or two off the photo's edge, so pixels
/// it holds whole can be wall. Near the matte's soft edge (the uncertain band) this estimates F:
/// - the background's colour B̂ and the subject's F̂ from the nearby pixels the matte leaves out and holds whole,
///   outside the band (means over a window);
/// - the pixel's own α from its colour, where B̂ and F̂ differ enough to say and the pixel lies near the line
///   between them (its place along it), else the matte's;
/// - F = (I − (1 − α)·B̂) / α where α is large enough to trust (clamped to 0...1), F̂ where it is not.
/// Elsewhere, and where no pure pixel on either side is near, the photo comes back unchanged.
/// `output: .matte` gives that α instead (the matte fitted to the photo's edge, unchanged elsewhere): blend the
/// subject's colour through it, not through the matte it came from. A subject's colour solved for a pixel the
/// matte misplaces, blended through the misplaced matte, would draw a hard line where the photo is soft (a
/// defocused shoulder), or a light one where the matte holds the wall (a bright rim). Blended through the fitted
/// matte over the same background, the colour rebuilds I. Core Image has no equivalent.
///
/// Inputs: the image and the matte (0...1), of one size.
public struct MatteForeground: Filter {
    public static let info = FilterInfo(
        name: "matteForeground", coreImageName: nil,
        summary: "The subject's own colour at a soft matte's edge, without the background mixed in, or the matte fitted to it.")

    /// What the step gives: the subject's colour (an image) or the fitted matte (a plane).
    public enum Output: String, Sendable {
        case colour, matte
    }

    public let output: Output

    public init(output: Output = .colour) { self.output = output }

    public var parameterKey: String { output.rawValue }

    public func outputKind(for inputs: [PixelKind]) throws -> PixelKind {
        try expect(inputs, [.image, .plane])
        return output == .colour ? .image : .plane
    }

    /// At or below this the matte leaves a pixel out, at or above 1 − this it holds it whole.
    static let pure: Float = 0.02
    /// Where the solved colour starts to be trusted (it divides by α), and where it is used alone.
    static let trustFrom: Float = 0.3, trustFull: Float = 0.7
    /// Squared colour distance between B̂ and F̂ from which α is read from the colour alone (0.1 a channel).
    static let separable: Float = 0.03
    /// How far off the line between background and subject a pixel may lie, squared, as a share of the squared
    /// distance between them, before its colour says nothing of its α.
    static let offLine: Float = 0.1
    /// Below this fitted α the subject's colour fades into the photo's (its weight in a blend is under 5 %).
    static let faint: Float = 0.05
    /// The share of the window each side's pure pixels must hold for the estimate to count in full.
    static let fullSupport: Float = 0.05
    /// How far past the matte's soft edge its placement is doubted, in native pixels (the matte's own offset from
    /// the photo's edge on the shared portraits: 1–2 px at 1158 px wide), and never under 2 rendered pixels.
    static let nativeMargin = 8.0

    /// The band's margin and the window's radius at `scale`.
    static func radii(_ scale: Double) -> (margin: Int, window: Int) {
        let margin = max(2, Int((nativeMargin * scale).rounded()))
        return (margin, 3 * margin)
    }

    public func inputTargets(for target: RenderTarget, extent: PixelSize, inputExtents: [PixelSize]) -> [RenderTarget] {
        let (margin, window) = Self.radii(Double(target.size.width) / Double(extent.width))
        let grownTarget = grown(target, by: margin + window)
        return [grownTarget, grownTarget]
    }

    public func render(_ inputs: [PixelBuffer], _ request: RenderRequest, context: RenderContext) throws -> PixelBuffer {
        let image = inputs[0], matte = inputs[1], frame = request.target.frame, out = request.region
        guard matte.region == image.region else {
            throw RenderError.badInputs(filter: Self.info.name, message: "expects the image and the matte at one size")
        }
        let (margin, window) = Self.radii(request.scale)
        let alpha = PixelBuffer(region: image.region, channels: 1, samples: matte.samples.map { min(max($0.isNaN ? 0 : $0, 0), 1) })
        var colour = image.cropped(to: out), fitted = alpha.cropped(to: out)
        let soft = PixelBuffer(region: image.region, channels: 1,
                               samples: alpha.samples.map { $0 > Self.pure && $0 < 1 - Self.pure ? 1 : 0 })
        guard soft.samples.contains(1) else { return output == .colour ? colour : fitted }
        // The band: within `margin` of the soft edge. Pure pixels outside it are what the estimates read.
        let reach = image.region.intersection(out.outset(by: window))
        let band = BoxBlur.convolution(radius: margin).run(soft, region: reach, frame: frame, context: context)
        try context.checkCancelled()
        let means = Self.windowMeans(image: image, alpha: alpha, band: band, reach: reach, window: window, context: context)
        try context.checkCancelled()
        colour.samples.withUnsafeMutableBufferPointer { colourSamples in
            fitted.samples.withUnsafeMutableBufferPointer { fittedSamples in
                let colourOut = SendablePointer(colourSamples.baseAddress!), fittedOut = SendablePointer(fittedSamples.baseAddress!)
                context.parallelRows(out.height, samplesPerRow: out.width * 4) { rows in
                    for row in rows {
                        let y = out.y + row
                        for x in out.x..<out.maxX where band.samples[(y - reach.y) * reach.width + (x - reach.x)] > 0 {
                            let o = row * out.width + (x - out.x)
                            guard let (a, f) = Self.estimate(at: o, alpha: fittedOut.pointer[o], colour: colourOut.pointer,
                                                             means: means.at(x, y)) else { continue }
                            fittedOut.pointer[o] = a
                            for c in 0..<3 { colourOut.pointer[o * 3 + c] = f[c] }
                        }
                    }
                }
            }
        }
        return output == .colour ? colour : fitted
    }

    /// The pixel's α and the subject's colour there, from the pixel, the matte's α and the window's means of the
    /// pure background and subject; nil where the matte leaves the pixel out or one side has no pure pixel near.
    private static func estimate(at o: Int, alpha a: Float, colour: UnsafeMutablePointer<Float>, means: WindowMeans.Sample)
        -> (Float, SIMD3<Float>)? {
        let nb = means.behind.w, nf = means.subject.w
        guard a > pure / 2, nb > 0, nf > 0 else { return nil }
        let pixel = SIMD3(colour[o * 3], colour[o * 3 + 1], colour[o * 3 + 2])
        let behind = SIMD3(means.behind.x, means.behind.y, means.behind.z) / nb
        let subject = SIMD3(means.subject.x, means.subject.y, means.subject.z) / nf
        let across = subject - behind
        let length = (across * across).sum()
        let along = length > 0 ? ((pixel - behind) * across).sum() / length : a
        let fromColour = min(max(along, 0), 1)
        // The colour is trusted where the two sides differ and the pixel lies near the line between them: an
        // edge of its own colour (an ear's shadowed rim) is not a mix of these two, and keeps the matte's α.
        let off = pixel - (behind + fromColour * across)
        let fits = length > 0 ? max(0, 1 - (off * off).sum() / (offLine * length)) : 0
        let confidence = min(1, length / separable) * fits
        let mix = confidence * fromColour + (1 - confidence) * a
        let t = min(max((mix - trustFrom) / (trustFull - trustFrom), 0), 1)
        let solved = t > 0 ? ((pixel - (1 - mix) * behind) / mix).clamped(lowerBound: .zero, upperBound: .one) : .zero
        // Few pure pixels in the window make a poor mean, and one entering the window would switch the estimate
        // on at once (a step in the result): the estimate is eased in with the support of the sparser side.
        let support = min(1, min(nb, nf) / fullSupport)
        let fitted = support * mix + (1 - support) * a
        // Where the fitted matte all but leaves the pixel out, its colour barely counts in a blend: the photo's
        // is kept there, so the step's own picture shows no specks of subject colour in the background.
        let shown = min(1, fitted / faint)
        return (fitted, pixel + shown * support * (t * solved + (1 - t) * subject - pixel))
    }

    /// The pure background's and subject's colour sums and shares over the window about each pixel, kept on a
    /// grid `cell` pixels coarser (a box mean of radius `window` is smooth; at an export's size the full-resolution
    /// box over eight channels took most of the step) and read bilinearly.
    struct WindowMeans {
        /// Premultiplied colour sums and the share of pure pixels (w), per side.
        struct Sample {
            var behind: SIMD4<Float>, subject: SIMD4<Float>
        }

        let grid: PixelBuffer, origin: (x: Int, y: Int), cell: Int

        func at(_ x: Int, _ y: Int) -> Sample {
            let gx = min(max((Float(x - origin.x) + 0.5) / Float(cell) - 0.5, 0), Float(grid.width - 1))
            let gy = min(max((Float(y - origin.y) + 0.5) / Float(cell) - 0.5, 0), Float(grid.height - 1))
            let x0 = Int(gx), y0 = Int(gy), x1 = min(x0 + 1, grid.width - 1), y1 = min(y0 + 1, grid.height - 1)
            let tx = gx - Float(x0), ty = gy - Float(y0)
            var sample = Sample(behind: .zero, subject: .zero)
            for (cx, cy, weight) in [(x0, y0, (1 - tx) * (1 - ty)), (x1, y0, tx * (1 - ty)), (x0, y1, (1 - tx) * ty), (x1, y1, tx * ty)]
            where weight > 0 {
                let i = (cy * grid.width + cx) * 8
                sample.behind += weight * SIMD4(grid.samples[i], grid.samples[i + 1], grid.samples[i + 2], grid.samples[i + 3])
                sample.subject += weight * SIMD4(grid.samples[i + 4], grid.samples[i + 5], grid.samples[i + 6], grid.samples[i + 7])
            }
            return sample
        }
    }

    /// Sums of the pure pixels (outside the band) per coarse cell, then their box mean over the window.
    static func windowMeans(image: PixelBuffer, alpha: PixelBuffer, band: PixelBuffer, reach: PixelRect, window: Int,
                            context: RenderContext) -> WindowMeans {
        let cell = max(1, window / 4)
        let gridWidth = (reach.width + cell - 1) / cell, gridHeight = (reach.height + cell - 1) / cell
        let gridRect = PixelRect(x: 0, y: 0, width: gridWidth, height: gridHeight)
        let perPixel = 1 / Float(cell * cell)
        var sums = PixelBuffer(region: gridRect, channels: 8)
        sums.samples.withUnsafeMutableBufferPointer { buffer in
            let sums = SendablePointer(buffer.baseAddress!)
            context.parallelRows(gridHeight, minimumBand: 1, samplesPerRow: reach.width * cell * 8) { gridRows in
                for gridRow in gridRows {
                    for y in (reach.y + gridRow * cell)..<min(reach.maxY, reach.y + (gridRow + 1) * cell) {
                        for x in reach.x..<reach.maxX {
                            let a = alpha[frameX: x, frameY: y, channel: 0]
                            let sure = band.samples[(y - reach.y) * reach.width + (x - reach.x)] <= 0
                            let behind = sure && a <= pure, subject = sure && a >= 1 - pure
                            guard behind || subject else { continue }
                            let g = (gridRow * gridWidth + (x - reach.x) / cell) * 8 + (subject ? 4 : 0)
                            for c in 0..<3 { sums.pointer[g + c] += image[frameX: x, frameY: y, channel: c] * perPixel }
                            sums.pointer[g + 3] += perPixel
                        }
                    }
                }
            }
        }
        let radius = max(1, Int((Double(window) / Double(cell)).rounded()))
        let grid = BoxBlur.convolution(radius: radius).run(sums, region: gridRect, frame: gridRect, context: context)
        return WindowMeans(grid: grid, origin: (reach.x, reach.y), cell: cell)
    }
}
