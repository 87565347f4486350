import DepthbookDocument
import DepthbookEngine

/// A cell's full-resolution result as a photo to save, with its depth and mattes where the recipe put the
/// image's pixels: the 2017 talk's rule that depth is transformed with the image (a dolly zoom, a lens
/// correction, a scaled subject or a crop moves both).
extension NotebookRenderer {
    public struct ExportedPhoto: Sendable {
        public var photo: Photo
        /// Whether the depth and mattes were moved with the image (false: kept as the photo has them).
        public var planesFollowed: Bool
        /// Whether the depth and mattes were left out because the result is a view they cannot follow.
        public var planesDropped: Bool
        /// Whether the photo's depth was left out because it was estimated, not measured: a file carrying it as
        /// depth would be taken for a camera's (opened again, the export gets a fresh estimate).
        public var depthEstimateLeftOut: Bool = false
    }

    /// `cell` rendered at the photo's width, in a copy of the photo. When nothing on the way moves pixels the
    /// photo's planes, faces and calibration are kept as they are. When something does, the disparity and each
    /// matte are rebuilt through the same recipe (`PlaneFollower`) at their own resolution; what a backdrop or
    /// the frame's outside shows gets the farthest disparity and an empty matte. Faces and the calibration
    /// describe the original geometry, so they are left out then.
    public func exportedPhoto(notebook: CheckedNotebook, cell: String,
                              isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> ExportedPhoto {
        var exported = try exportedPlanes(notebook: notebook, cell: cell, isCancelled: isCancelled)
        if exported.photo.depth?.estimate != nil {
            exported.photo.depth = nil
            exported.depthEstimateLeftOut = true
        }
        return exported
    }

    /// The exported photo with every plane the recipe could carry, the estimated depth included.
    private func exportedPlanes(notebook: CheckedNotebook, cell: String,
                                isCancelled: @escaping @Sendable () -> Bool) throws -> ExportedPhoto {
        let rendered = try render(notebook: notebook, cell: cell, request: CellRenderRequest(width: photo.width),
                                  isCancelled: isCancelled)
        var result = photo
        result.image = rendered.image
        // Masks and depth views are pictures of the planes themselves: the planes stay as the photo has them.
        guard rendered.kind == .image else { return ExportedPhoto(photo: result, planesFollowed: false, planesDropped: false) }

        // Its own cache: these branches are made once, and the previews' cache keeps what the page uses.
        let evaluator = Evaluator(context: RenderContext(cache: Self.loopCache(), isCancelled: isCancelled), keepsResult: false)
        do {
            var builder = RecipeBuilder(notebook: notebook, context: context(evaluator))
            let root = try builder.build(cell).node
            switch PlaneFollower.effect(of: root) {
            case .none:
                return ExportedPhoto(photo: result, planesFollowed: false, planesDropped: false)
            case .unfollowable:
                result.depth = nil
                result.mattes = []
                result.faces = []
                return ExportedPhoto(photo: result, planesFollowed: false, planesDropped: true)
            case .moves:
                break
            }
            if let depth = photo.depth {
                var disparity = depth.converted(to: .disparity)
                if let range = disparity.range {
                    disparity.map = try followed(disparity.map, range: range, name: "disparity", root: root, evaluator: evaluator)
                }
                disparity.calibration = nil
                result.depth = disparity
            }
            result.mattes = try photo.mattes.map { matte in
                Matte(kind: matte.kind, plane: try followed(matte.plane, range: 0...1, name: matte.kind.rawValue,
                                                            root: root, evaluator: evaluator))
            }
            result.faces = []
            return ExportedPhoto(photo: result, planesFollowed: true, planesDropped: false)
        } catch let error as RenderError {
            throw EffectError(error)
        }
    }

    /// `plane` taken through `root`'s image branch and rendered at its own size. It travels as an image with
    /// `range` mapped to 0...1 (so 0, the value outside the photo, is the farthest disparity or an empty matte)
    /// and comes back in its own units.
    private func followed(_ plane: FloatPlane, range: ClosedRange<Float>, name: String, root: Node,
                          evaluator: Evaluator) throws -> FloatPlane {
        let low = range.lowerBound, span = max(range.upperBound - range.lowerBound, .leastNormalMagnitude)
        var rgb = [Float](repeating: 0, count: plane.samples.count * 3)
        for (i, v) in plane.samples.enumerated() {
            let unit = (v - low) / span
            rgb[3 * i] = unit
            rgb[3 * i + 1] = unit
            rgb[3 * i + 2] = unit
        }
        let imageExtent = PixelSize(width: photo.width, height: photo.height)
        // Standing where the image is, sampled once at each render's size (rendered at its own size: as it is).
        let source = try Node(PlaneSource(Raster(width: plane.width, height: plane.height, channels: 3, samples: rgb),
                                          id: "\(photoID):follow:\(name)", hasHoles: true, stretchedTo: imageExtent))
        let follower = PlaneFollower(
            isPhotoImage: { [photoID] node in
                guard let source = node.filter as? PhotoSource else { return false }
                return source.plane == .image && source.photoID == photoID
            },
            plane: source,
            elsewhere: { extent in
                try Node(PlaneSource(Raster(width: 1, height: 1, channels: 3, samples: [0, 0, 0]), id: "nothing", stretchedTo: extent))
            })
        let size = PixelSize(width: plane.width, height: plane.height)
        let moved = try evaluator.render(try follower.follow(root), RenderTarget(size: size))
        var out = plane
        for i in 0..<out.samples.count { out.samples[i] = moved.samples[3 * i] * span + low }
        return out
    }
}
