/// 4-connected components of a mask, labelled by one flood fill each: the near class's parts (the subject's
/// region) and the dolly zoom's gaps (tears too small to show what lies behind).
public enum ConnectedComponents {
    /// A label per pixel of `set` (-1 outside it) and each component's pixel count.
    public static func labelled(_ set: [Bool], width w: Int, height h: Int) -> (labels: [Int32], sizes: [Int]) {
        var labels = [Int32](repeating: -1, count: w * h)
        var sizes = [Int]()
        var stack = [Int]()
        for start in 0..<(w * h) where set[start] && labels[start] < 0 {
            let label = Int32(sizes.count)
            var count = 0
            labels[start] = label
            stack.append(start)
            while let i = stack.popLast() {
                count += 1
                let x = i % w, y = i / w
                func visit(_ n: Int) {
                    if set[n] && labels[n] < 0 { labels[n] = label; stack.append(n) }
                }
                if x > 0 { visit(i - 1) }
                if x < w - 1 { visit(i + 1) }
                if y > 0 { visit(i - w) }
                if y < h - 1 { visit(i + w) }
            }
            sizes.append(count)
        }
        return (labels, sizes)
    }
}
