/// Which pixels of a mask the frame's border reaches (4-connected) through pixels outside the mask: the view
/// past a warped photo's edges, or everything but a region's holes. One flood fill for every caller.
public enum BorderReach {
    /// `true` where the pixel is outside `blocked` and connected to the border through such pixels.
    public static func reached(outside blocked: [Bool], width w: Int, height h: Int) -> [Bool] {
        var reached = [Bool](repeating: false, count: w * h)
        var stack = [Int]()
        func push(_ i: Int) {
            if !blocked[i] && !reached[i] { reached[i] = true; stack.append(i) }
        }
        for x in 0..<w { push(x); push((h - 1) * w + x) }
        for y in 0..<h { push(y * w); push(y * w + w - 1) }
        while let i = stack.popLast() {
            let x = i % w, y = i / w
            if x > 0 { push(i - 1) }
            if x < w - 1 { push(i + 1) }
            if y > 0 { push(i - w) }
            if y < h - 1 { push(i + w) }
        }
        return reached
    }
}
