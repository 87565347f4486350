import DepthbookEngine
import Testing

/// A photo reduced for previews keeps its full size for every effect's geometry, and previews of it match
/// previews of the full photo.
struct ReducedPhotoTests {
    /// A 1200×900 photo with detail at many scales: gradients, stripes 4 to 12 px wide, a bright square.
    static let photo: Photo = {
        let w = 1200, h = 900
        var samples = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 3
                samples[i] = UInt8(x * 255 / (w - 1))
                samples[i + 1] = (x / (4 + y / 100)) % 2 == 0 ? 40 : 220
                samples[i + 2] = (300..<500).contains(x) && (200..<400).contains(y) ? 250 : UInt8(y * 255 / (h - 1))
            }
        }
        return Photo(image: RGBImage8(width: w, height: h, channels: 3, samples: samples))
    }()

    @Test func itKeepsTheFullSizeAndHoldsFewerPixels() throws {
        let reduced = try Self.photo.reducedForPreviews(maxSide: 400)
        #expect(reduced.isReduced && !Self.photo.isReduced)
        #expect(reduced.width == 1200 && reduced.height == 900)
        #expect(reduced.image.width == 400 && reduced.image.height == 300)
        // Already small enough, or already reduced: the photo itself.
        #expect(try !Self.photo.reducedForPreviews(maxSide: 1200).isReduced)
        #expect(try reduced.reducedForPreviews(maxSide: 200).image.width == 400)
    }

    @Test func aPreviewOfTheReducedPhotoMatchesOneOfTheFullPhoto() throws {
        // As a 12 MP photo's copy (2048 of 4032 px) serves 736-px previews and their 368-px coarse passes.
        let reduced = try Self.photo.reducedForPreviews(maxSide: 610)
        // (width, mean and largest difference allowed): two area reductions blur stripes a little more than one,
        // most where the preview is nearly as wide as the copy (a 1472-px preview of a 12 MP photo).
        for (width, meanBound, largestBound) in [(110, 0.5, 12), (220, 1.2, 12), (440, 2.5, 30)] {
            let target = RenderTarget(size: PixelSize(width: width, height: width * 3 / 4))
            let full = try Evaluator().renderBytes(try Node(PhotoSource(photo: Self.photo, plane: .image, photoID: "full")), target)
            let fromReduced = try Evaluator().renderBytes(try Node(PhotoSource(photo: reduced, plane: .image, photoID: "reduced")), target)
            #expect(fromReduced.width == full.width && fromReduced.height == full.height)
            let differences = zip(full.samples, fromReduced.samples).map { abs(Int($0) - Int($1)) }
            let mean = Double(differences.reduce(0, +)) / Double(differences.count)
            #expect(mean <= meanBound, "mean difference \(mean) levels at \(width) px")
            #expect(differences.max()! <= largestBound, "largest difference \(differences.max()!) levels at \(width) px")
        }
    }

    /// At the reduced image's own size the source reads its pixels as they are.
    @Test func atItsOwnSizeTheReducedImageIsReadAsItIs() throws {
        let reduced = try Self.photo.reducedForPreviews(maxSide: 400)
        let target = RenderTarget(size: PixelSize(width: 400, height: 300))
        let read = try Evaluator().renderBytes(try Node(PhotoSource(photo: reduced, plane: .image, photoID: "r")), target)
        #expect(read.samples == reduced.image.samples)
    }
}
