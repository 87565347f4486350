/// Where a filter's output pixels come from. The 2017 talk's rule for saving an edited photo is that its depth
/// goes through the same geometry as its image; this says which filters are that geometry.
public enum PixelPlacement: Sendable {
    /// Each output pixel is made from its own place in the inputs (colour, tone, blur, darkening by depth):
    /// a plane that follows the image passes through unchanged.
    case inPlace
    /// Output pixels come from other places (a warp, crop, resample or scaled subject): the filter is applied
    /// to a plane following the image as it is to the image.
    case moved
    /// Output pixels are mixed from several images by a mask (a blend, a composite): applied to the planes that
    /// follow each image, but on its own it moves nothing.
    case mixed
    /// The output is a view no plane of the photo can follow (a point cloud seen from elsewhere).
    case unfollowable
}
