import DepthbookCodecs
import DepthbookDocument
import DepthbookEngine
import DepthbookTestSupport
import Foundation
import Testing
@testable import DepthbookEffects

/// No glow around the subject (issue 38): where a feathered mask blends a treated foreground over a background,
/// the ring just outside the subject looks like the background, as a hard cut on Apple's portrait matte makes it,
/// not a halo of the foreground's light. Measured against that hard cut in the ring 2–10 px outside the matte's
/// edge at the matte's own width, with the feather's soft edge inside (the default) and centred (the talk's).
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct SoftEdgeGlowTests {
    typealias S = EffectTestSupport
    static let width = MatteAgreementTests.width

    /// Pixels outside the matte (cut at 0.5) within `far` pixels (Chebyshev) of it but not within `near - 1`.
    static func ring(_ matte: PixelBuffer, near: Int, far: Int) -> [Bool] {
        let inside = matte.samples.map { $0 >= 0.5 }
        let within = { (r: Int) in Self.dilated(inside, width: matte.width, height: matte.height, radius: r) }
        let outer = within(far), inner = within(near - 1)
        return (0..<inside.count).map { outer[$0] && !inner[$0] }
    }

    /// A square dilation, rows then columns.
    static func dilated(_ mask: [Bool], width w: Int, height h: Int, radius r: Int) -> [Bool] {
        guard r > 0 else { return mask }
        var rows = [Bool](repeating: false, count: mask.count)
        for y in 0..<h {
            for x in 0..<w where mask[y * w + x] {
                for dx in max(0, x - r)...min(w - 1, x + r) { rows[y * w + dx] = true }
            }
        }
        var out = [Bool](repeating: false, count: mask.count)
        for y in 0..<h {
            for x in 0..<w where rows[y * w + x] {
                for dy in max(0, y - r)...min(h - 1, y + r) { out[dy * w + x] = true }
            }
        }
        return out
    }

    /// Mean |result − hard cut| over the ring, in grey levels (0…255, all channels).
    static func glow(result: PixelBuffer, foreground: PixelBuffer, background: PixelBuffer, matte: PixelBuffer, ring: [Bool]) -> Double {
        var sum = 0.0, count = 0
        for i in 0..<ring.count where ring[i] {
            let inside = matte.samples[i] >= 0.5
            for c in 0..<3 {
                let hard = inside ? foreground.samples[i * 3 + c] : background.samples[i * 3 + c]
                sum += Double(abs(result.samples[i * 3 + c] - hard))
                count += 1
            }
        }
        return count > 0 ? 255 * sum / Double(count) : 0
    }

    static func with(_ notebook: Notebook, cell id: String, edge: String) -> Notebook {
        var changed = notebook
        if let index = changed.cells.firstIndex(where: { $0.id == id }) {
            changed.cells[index].params = (changed.cells[index].params ?? [:]).merging(["edge": .choice(edge)]) { $1 }
        }
        return changed
    }

    /// The glow of `notebook`'s result on `file` with the soft edge of `maskCell` inside and centred, the hard
    /// cut blending `foreground` over `background` on Apple's matte; printed as one line.
    static func glowFigures(_ file: String, notebook name: String, maskCell: String, foreground: String,
                            background: String) throws -> (inside: Double, centred: Double) {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let notebook = try MatteAgreementTests.notebook(name)
        let matte = try S.floats(photo, notebook, "photo.portraitEffectsMatte", width: width)
        let ring = ring(matte, near: 2, far: 10)
        let front = try S.floats(photo, notebook, foreground, width: width)
        let back = try S.floats(photo, notebook, background, width: width)
        let figures = try ["inside", "centred"].map { edge in
            let result = try S.floats(photo, with(notebook, cell: maskCell, edge: edge), "result", width: width)
            return glow(result: result, foreground: front, background: back, matte: matte, ring: ring)
        }
        print("glow \(name) \(file): ring 2-10 px outside the matte, mean |result - hard cut| inside=\(figures[0]) centred=\(figures[1]) levels")
        return (figures[0], figures[1])
    }

    @Test(arguments: MatteAgreementTests.files)
    func theDepthThresholdResultDoesNotGlow(file: String) throws {
        let glow = try Self.glowFigures(file, notebook: "depth-threshold", maskCell: "feathered", foreground: "foreground", background: "dark")
        #expect(glow.inside <= 4, "\(file): the result glows \(glow.inside) levels past the subject")
        #expect(glow.inside < glow.centred, "the soft edge inside glows less than the talk's")
    }

    @Test(arguments: MatteAgreementTests.files)
    func backdropDoesNotGlow(file: String) throws {
        let glow = try Self.glowFigures(file, notebook: "backdrop", maskCell: "mask", foreground: "photo", background: "scenery")
        #expect(glow.inside < glow.centred, "the soft edge inside glows less than the talk's")
    }
}
