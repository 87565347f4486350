import Foundation

/// Holes filled with the picture's own texture: multi-scale PatchMatch (Barnes, Shechtman, Finkelstein & Goldman
/// 2009) with the voting of Wexler, Shechtman & Irani (2007). Each patch that touches the hole finds a patch wholly
/// inside `source` that looks like it, and each hole pixel becomes the weighted mean of what the matches of the
/// patches over it put there. Coarse to fine: the coarse levels lay out structure, the fine ones copy texture.
/// Where push-pull averages the surroundings into a flat smear, this copies them.
public enum PatchInpaint {
    /// `image` with every `hole` pixel filled from patches made only of `source` pixels (both one flag per pixel).
    /// The image is returned as it is when nothing is a hole; the hole is filled by push-pull when no whole patch
    /// of source exists. Deterministic for a given `seed`.
    /// `checkCancelled` runs between passes, so abandoned work stops within one.
    public static func filled(_ image: PixelBuffer, hole: [Bool], source: [Bool], patchRadius: Int = 2,
                              iterations: Int = 4, seed: UInt64 = 0x9E37_79B9_7F4A_7C15,
                              checkCancelled: () throws -> Void = {}) throws -> PixelBuffer {
        let w = image.region.width, h = image.region.height, ch = image.channels
        guard hole.contains(true), w > 0, h > 0 else { return image }
        var levels = [Level(width: w, height: h, channels: ch, colors: image.samples, hole: hole, source: source.indices.map { source[$0] && !hole[$0] })]
        while let last = levels.last, max(last.width, last.height) > coarsest, levels.count < 10 { levels.append(last.halved()) }
        var random = Random(seed)
        var nnf: [Int32] = []
        for l in stride(from: levels.count - 1, through: 0, by: -1) {
            var level = levels[l]
            let solver = Solver(level: level, r: patchRadius, coarsest: l == levels.count - 1)
            if l == levels.count - 1 || nnf.isEmpty {
                level.colors = pushPulled(level)
                nnf = solver.randomField(&random)
            } else {
                nnf = solver.upsampled(nnf, from: levels[l + 1], &random)
                // The hole starts as the coarser level's fill, so the first weights compare like with like.
                let coarse = levels[l + 1]
                for i in 0..<(level.width * level.height) where level.hole[i] {
                    let c = (min(coarse.height - 1, (i / level.width) / 2) * coarse.width + min(coarse.width - 1, (i % level.width) / 2)) * level.channels
                    for k in 0..<level.channels { level.colors[i * level.channels + k] = coarse.colors[c + k] }
                }
                if !solver.valid.isEmpty { solver.vote(nnf, solver.distances(nnf, level.colors), into: &level.colors) }
            }
            if !solver.valid.isEmpty {
                // The finest level costs four times the next: fewer passes there, where the layout is settled.
                let passes = l == 0 ? max(1, iterations / 2) : iterations
                for pass in 0..<passes {
                    try checkCancelled()
                    var dist = solver.distances(nnf, level.colors)
                    solver.search(&nnf, &dist, level.colors, forward: pass % 2 == 0, &random)
                    solver.vote(nnf, dist, into: &level.colors)
                }
            }
            levels[l] = level
        }
        return PixelBuffer(region: image.region, channels: ch, samples: levels[0].colors)
    }

    /// The largest side the coarsest level may have.
    static let coarsest = 48

    struct Level {
        var width: Int, height: Int, channels: Int
        var colors: [Float]
        var hole: [Bool]
        var source: [Bool]

        /// Half the size: a pixel is a hole if any of its four is, a source only if all four are; its colour the
        /// mean of its known ones.
        func halved() -> Level {
            let nw = (width + 1) / 2, nh = (height + 1) / 2, ch = channels
            var c = [Float](repeating: 0, count: nw * nh * ch), hl = [Bool](repeating: false, count: nw * nh)
            var sr = [Bool](repeating: true, count: nw * nh), n = [Float](repeating: 0, count: nw * nh)
            for y in 0..<height {
                for x in 0..<width {
                    let s = y * width + x, d = (y / 2) * nw + x / 2
                    if hole[s] { hl[d] = true } else {
                        n[d] += 1
                        for k in 0..<ch { c[d * ch + k] += colors[s * ch + k] }
                    }
                    if !source[s] { sr[d] = false }
                }
            }
            for d in 0..<(nw * nh) where n[d] > 0 { for k in 0..<ch { c[d * ch + k] /= n[d] } }
            for d in 0..<(nw * nh) where hl[d] { sr[d] = false }
            // A pixel with right or bottom neighbours missing at an odd size: its half-covered parent stays a source.
            return Level(width: nw, height: nh, channels: ch, colors: c, hole: hl, source: sr)
        }
    }

    /// The level's hole filled smoothly from the source: the coarsest level's start.
    static func pushPulled(_ level: Level) -> [Float] {
        let n = level.width * level.height, ch = level.channels
        var weights = [Float](repeating: 0, count: n), colors = level.colors
        // From the source alone: what is neither (the subject in front) must not tint the start.
        for i in 0..<n where level.source[i] { weights[i] = 1 }
        for i in 0..<n where !level.source[i] { for k in 0..<ch { colors[i * ch + k] = 0 } }
        let filled = PushPull.fill(colors: colors, weights: weights, channels: ch, width: level.width, height: level.height)
        var out = level.colors
        for i in 0..<n where level.hole[i] { for k in 0..<ch { out[i * ch + k] = filled[i * ch + k] } }
        return out
    }

    /// One level's patch search and voting. Target patches: every pixel within `r` of the hole; sources: patch
    /// centres whose whole patch is source.
    struct Solver {
        let w: Int, h: Int, ch: Int, r: Int
        let hole: [Bool]
        /// The pixels a target patch is compared over: hole and source, not what is neither (a subject in front).
        let counted: [Bool]
        /// How far the random search looks at first: the whole level at the coarsest, a few pixels above it.
        let searchRadius: Int
        let targets: [Int]
        let isValid: [Bool]
        let valid: [Int32]

        init(level: Level, r: Int, coarsest: Bool) {
            w = level.width; h = level.height; ch = level.channels; self.r = r
            hole = level.hole
            counted = level.hole.indices.map { level.hole[$0] || level.source[$0] }
            searchRadius = coarsest ? max(level.width, level.height) : 8
            var near = [Bool](repeating: false, count: w * h)
            for y in 0..<h {
                for x in 0..<w where level.hole[y * w + x] {
                    for yy in max(0, y - r)...min(h - 1, y + r) { for xx in max(0, x - r)...min(w - 1, x + r) { near[yy * w + xx] = true } }
                }
            }
            targets = near.indices.filter { near[$0] }
            // Summed-area table of non-source pixels: a centre is valid when its patch holds none.
            var table = [Int32](repeating: 0, count: (w + 1) * (h + 1))
            for y in 0..<h {
                var row: Int32 = 0
                for x in 0..<w {
                    row += level.source[y * w + x] ? 0 : 1
                    table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
                }
            }
            var flags = [Bool](repeating: false, count: w * h), list: [Int32] = []
            if w > 2 * r, h > 2 * r {
                for y in r..<(h - r) {
                    for x in r..<(w - r) {
                        let x0 = x - r, y0 = y - r, x1 = x + r + 1, y1 = y + r + 1
                        let bad = table[y1 * (w + 1) + x1] - table[y0 * (w + 1) + x1] - table[y1 * (w + 1) + x0] + table[y0 * (w + 1) + x0]
                        if bad == 0 { flags[y * w + x] = true; list.append(Int32(y * w + x)) }
                    }
                }
            }
            isValid = flags
            valid = list
        }

        func randomField(_ random: inout Random) -> [Int32] {
            var f = [Int32](repeating: -1, count: w * h)
            guard !valid.isEmpty else { return f }
            for p in targets { f[p] = valid[random.below(valid.count)] }
            return f
        }

        /// The coarser level's matches doubled onto this one; a random source where the doubled one is not valid.
        func upsampled(_ coarse: [Int32], from level: Level, _ random: inout Random) -> [Int32] {
            var f = [Int32](repeating: -1, count: w * h)
            guard !valid.isEmpty else { return f }
            for p in targets {
                let x = p % w, y = p / w
                let cx = min(level.width - 1, x / 2), cy = min(level.height - 1, y / 2)
                let q = Int(coarse[cy * level.width + cx])
                if q >= 0 {
                    let sx = 2 * (q % level.width) + x % 2, sy = 2 * (q / level.width) + y % 2
                    if sx < w, sy < h, isValid[sy * w + sx] { f[p] = Int32(sy * w + sx); continue }
                }
                f[p] = valid[random.below(valid.count)]
            }
            return f
        }

        /// Sum of squared differences between the patch at target `p` (the parts inside the frame) and at source
        /// `q`, given up once it passes `limit`.
        @inline(__always)
        func distance(_ p: Int, _ q: Int, _ colors: UnsafePointer<Float>, limit: Float) -> Float {
            let px = p % w, py = p / w, qx = q % w, qy = q / w
            var sum: Float = 0
            for dy in -r...r {
                let ty = py + dy
                guard ty >= 0, ty < h else { continue }
                let tRow = ty * w, sRow = (qy + dy) * w
                for dx in -r...r {
                    let tx = px + dx
                    guard tx >= 0, tx < w, counted[tRow + tx] else { continue }
                    let a = (tRow + tx) * ch, b = (sRow + qx + dx) * ch
                    for k in 0..<ch { let d = colors[a + k] - colors[b + k]; sum += d * d }
                }
                if sum > limit { return sum }
            }
            return sum
        }

        func distances(_ f: [Int32], _ colors: [Float]) -> [Float] {
            var dist = [Float](repeating: .infinity, count: w * h)
            colors.withUnsafeBufferPointer { c in
                for p in targets where f[p] >= 0 { dist[p] = distance(p, Int(f[p]), c.baseAddress!, limit: .infinity) }
            }
            return dist
        }

        /// One PatchMatch pass: each target tries its neighbours' matches shifted by one pixel (the neighbours
        /// before it in the pass's direction), then random sources in halving windows around its best.
        func search(_ f: inout [Int32], _ dist: inout [Float], _ colors: [Float], forward: Bool, _ random: inout Random) {
            colors.withUnsafeBufferPointer { cb in
                let c = cb.baseAddress!
                let order = forward ? Array(targets) : targets.reversed()
                let step = forward ? 1 : -1
                for p in order {
                    var best = Int(f[p]), bestD = dist[p]
                    func consider(_ q: Int) {
                        guard q >= 0, q < w * h, q != best, isValid[q] else { return }
                        let d = distance(p, q, c, limit: bestD)
                        if d < bestD { best = q; bestD = d }
                    }
                    let x = p % w, y = p / w
                    // Propagation: the left (right) and upper (lower) neighbours' matches, moved along.
                    if x - step >= 0, x - step < w, f[p - step] >= 0 {
                        let q = Int(f[p - step]), qx = q % w + step
                        if qx >= 0, qx < w { consider(q + step) }
                    }
                    if y - step >= 0, y - step < h, f[p - step * w] >= 0 {
                        let q = Int(f[p - step * w]), qy = q / w + step
                        if qy >= 0, qy < h { consider(q + step * w) }
                    }
                    // Random search.
                    var radius = searchRadius
                    while radius >= 1 {
                        let bx = best % w, by = best / w
                        let sx = min(w - 1 - r, max(r, bx + random.within(radius)))
                        let sy = min(h - 1 - r, max(r, by + random.within(radius)))
                        consider(sy * w + sx)
                        radius /= 2
                    }
                    f[p] = Int32(best)
                    dist[p] = bestD
                }
            }
        }

        /// Each hole pixel: the mean of what the matches of the patches over it put there, each weighted by how
        /// well its patch matched (exp(−d / 2σ²), σ² the targets' mean distance).
        func vote(_ f: [Int32], _ dist: [Float], into colors: inout [Float]) {
            var mean: Double = 0, count = 0.0
            for p in targets where dist[p].isFinite { mean += Double(dist[p]); count += 1 }
            let sigma2 = Float(max(1e-8, count > 0 ? mean / count : 1))
            var acc = [Float](repeating: 0, count: w * h * ch), weight = [Float](repeating: 0, count: w * h)
            colors.withUnsafeBufferPointer { c in
                for p in targets where f[p] >= 0 && dist[p].isFinite {
                    let q = Int(f[p]), px = p % w, py = p / w, qx = q % w, qy = q / w
                    let wt = max(1e-6, expf(-dist[p] / (2 * sigma2)))
                    for dy in -r...r {
                        let ty = py + dy
                        guard ty >= 0, ty < h else { continue }
                        for dx in -r...r {
                            let tx = px + dx
                            guard tx >= 0, tx < w else { continue }
                            let t = ty * w + tx
                            guard hole[t] else { continue }
                            let s = ((qy + dy) * w + qx + dx) * ch
                            weight[t] += wt
                            for k in 0..<ch { acc[t * ch + k] += wt * c[s + k] }
                        }
                    }
                }
            }
            for t in 0..<(w * h) where hole[t] && weight[t] > 0 {
                for k in 0..<ch { colors[t * ch + k] = acc[t * ch + k] / weight[t] }
            }
        }
    }

    /// xorshift64*: small, fast and the same on every machine.
    struct Random {
        var state: UInt64
        init(_ seed: UInt64) { state = seed == 0 ? 1 : seed }
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        /// Uniform in −radius...radius.
        mutating func within(_ radius: Int) -> Int { below(2 * radius + 1) - radius }
    }
}
