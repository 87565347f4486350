extension Photo {
    /// The photo with its image reduced so that neither side exceeds `maxSide` (the planes, already smaller,
    /// stay as they are), for renders no wider than that: a server keeps this copy of every open photo for its
    /// previews, a quarter of a 12 MP image's bytes, and decodes the full image only for exports and crops.
    /// The photo keeps its full size (`width`, `height`), so every effect's geometry and every parameter in
    /// full-resolution pixels means what it means on the full photo; only the image's pixels are fewer.
    /// Returns the photo itself when its image already fits.
    public func reducedForPreviews(maxSide: Int, threads: Int = RenderContext.defaultThreads) throws -> Photo {
        let longest = max(width, height)
        guard !isReduced, longest > maxSide, maxSide > 0 else { return self }
        let factor = Double(maxSide) / Double(longest)
        let size = PixelSize(width: max(1, Int((Double(width) * factor).rounded())),
                             height: max(1, Int((Double(height) * factor).rounded())))
        // The same area-like reduction a preview of the full image gets.
        let source = try Node(PhotoSource(photo: self, plane: .image, photoID: "reduced-for-previews"))
        var reduced = self
        reduced.image = try Evaluator(context: RenderContext(threads: threads)).renderBytes(source, RenderTarget(size: size))
        reduced.fullSize = PixelSize(width: width, height: height)
        return reduced
    }
}
