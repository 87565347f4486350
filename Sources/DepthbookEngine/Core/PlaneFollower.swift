/// Rebuilds a recipe's image branch over another plane of the photo (its disparity, a matte), so the plane
/// ends up where the recipe put the image's pixels.
///
/// The photo's image source becomes `plane` (3 equal channels at the image's extent, so every image filter
/// accepts it). Filters that move or mix pixels are applied to the planes following their image inputs, with
/// their other inputs (the masks and disparity that drive them) as they are; filters that work in place are
/// skipped. An image that is not the photo (a backdrop) becomes `elsewhere`: what the plane holds where the
/// photo is not.
public struct PlaneFollower {
    private let isPhotoImage: (Node) -> Bool
    private let plane: Node
    private let elsewhere: (PixelSize) throws -> Node

    public init(isPhotoImage: @escaping (Node) -> Bool, plane: Node, elsewhere: @escaping (PixelSize) throws -> Node) {
        self.isPhotoImage = isPhotoImage
        self.plane = plane
        self.elsewhere = elsewhere
    }

    /// What a recipe ending at `root` does to where pixels are.
    public enum Effect: Equatable, Sendable {
        /// Every pixel stays where it was: the photo's planes still fit the result.
        case none
        /// Some pixels moved: the planes must follow.
        case moves
        /// The result is a view the planes cannot follow.
        case unfollowable
    }

    /// Whether any filter on the image branch of `root` moves pixels (or makes a view no plane can follow).
    public static func effect(of root: Node) -> Effect {
        var seen = Set<NodeKey>()
        var moves = false
        func walk(_ node: Node) -> Bool {
            guard node.kind == .image, seen.insert(node.key).inserted else { return true }
            switch type(of: node.filter).placement {
            case .unfollowable: return false
            case .moved: moves = true
            case .inPlace, .mixed: break
            }
            return node.inputs.allSatisfy(walk)
        }
        guard walk(root) else { return .unfollowable }
        return moves ? .moves : .none
    }

    /// `root`'s image branch over the plane: an image node whose first channel is the plane moved as the
    /// image was. Throws `RenderError.badInputs` for an in-place filter that changes the size (nothing to follow).
    public func follow(_ root: Node) throws -> Node {
        var memo = [NodeKey: Node]()
        func rebuilt(_ node: Node) throws -> Node {
            if let done = memo[node.key] { return done }
            let result: Node
            if isPhotoImage(node) {
                result = plane
            } else if let first = node.inputs.first(where: { $0.kind == .image }) {
                switch type(of: node.filter).placement {
                case .moved, .mixed:
                    result = try Node(node.filter, node.inputs.map { $0.kind == .image ? try rebuilt($0) : $0 })
                case .inPlace:
                    guard first.extent == node.extent else {
                        throw RenderError.badInputs(filter: node.name, message: "changes the size in place: a plane cannot follow it")
                    }
                    result = try rebuilt(first)
                case .unfollowable:
                    throw RenderError.badInputs(filter: node.name, message: "makes a view the photo's planes cannot follow")
                }
            } else {
                result = try elsewhere(node.extent)
            }
            memo[node.key] = result
            return result
        }
        return try rebuilt(root)
    }
}
