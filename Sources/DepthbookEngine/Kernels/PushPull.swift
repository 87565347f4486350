/// Push–pull filling of missing pixels (Gortler et al.'s pull–push, as Big Head fills its plate): sum 2 × 2 blocks
/// of weighted colours and weights down to one pixel, then fill each level's missing weight from the bilinearly
/// upsampled coarser level. Colours come premultiplied by their weight (0...1); a pixel of weight 1 comes back
/// unchanged, one of weight 0 takes the smooth continuation of what surrounds it.
public enum PushPull {
    /// `colors`: `channels` values per pixel, premultiplied; `weights` one per pixel. The filled colours.
    public static func fill(colors: [Float], weights: [Float], channels ch: Int, width: Int, height: Int) -> [Float] {
        var levels: [(c: [Float], w: [Float], width: Int, height: Int)] = [(colors, weights, width, height)]
        while let last = levels.last, last.width > 1 || last.height > 1 {
            let nw = (last.width + 1) / 2, nh = (last.height + 1) / 2
            var c = [Float](repeating: 0, count: nw * nh * ch), wt = [Float](repeating: 0, count: nw * nh)
            for y in 0..<last.height {
                for x in 0..<last.width {
                    let s = y * last.width + x, d = (y / 2) * nw + x / 2
                    wt[d] += last.w[s]
                    for k in 0..<ch { c[d * ch + k] += last.c[s * ch + k] }
                }
            }
            // Keep weights in 0...1 so a level mixes "known here" with "filled from above".
            for i in 0..<(nw * nh) where wt[i] > 1 {
                for k in 0..<ch { c[i * ch + k] /= wt[i] }
                wt[i] = 1
            }
            levels.append((c, wt, nw, nh))
        }
        var above = levels[levels.count - 1]
        // The top pixel: normalise what is known, or grey when the whole frame was a hole.
        if above.w[0] > 0 {
            for k in 0..<ch { above.c[k] /= above.w[0] }
        } else {
            above.c = [Float](repeating: 0.5, count: ch)
        }
        var filled = above.c
        for l in stride(from: levels.count - 2, through: 0, by: -1) {
            let level = levels[l]
            let cw = above.width, chh = above.height
            var out = level.c
            for y in 0..<level.height {
                let fy = min(max((Double(y) + 0.5) / 2 - 0.5, 0), Double(chh - 1))
                let y0 = Int(fy), y1 = min(y0 + 1, chh - 1), ty = Float(fy - Double(y0))
                for x in 0..<level.width {
                    let i = y * level.width + x
                    let missing = 1 - level.w[i]
                    if missing <= 0 { continue }
                    let fx = min(max((Double(x) + 0.5) / 2 - 0.5, 0), Double(cw - 1))
                    let x0 = Int(fx), x1 = min(x0 + 1, cw - 1), tx = Float(fx - Double(x0))
                    for k in 0..<ch {
                        let a = filled[(y0 * cw + x0) * ch + k], b = filled[(y0 * cw + x1) * ch + k]
                        let c = filled[(y1 * cw + x0) * ch + k], d = filled[(y1 * cw + x1) * ch + k]
                        let up = (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty
                        out[i * ch + k] = level.c[i * ch + k] + missing * up
                    }
                }
            }
            filled = out
            above = (out, level.w, level.width, level.height)
        }
        return filled
    }
}
