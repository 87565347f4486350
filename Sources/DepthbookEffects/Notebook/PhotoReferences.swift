import DepthbookEngine

/// How a cell names what it reads: another cell's id, or the photo and its planes (`photo`, `photo.disparity`,
/// `photo.skin`…). The one place these names are spelled out.
public enum PhotoReferences {
    /// Every reference to the photo a notebook may use (the page gets this list in `hello`).
    /// `photo.subject` is the subject mask the renderer makes from depth (present whenever depth is), with the
    /// learned `photo.personMatte` when there is one.
    public static let all: [String] = ["photo", "photo.image", "photo.depth", "photo.disparity", "photo.subject"]
        + MatteKind.allCases.map { "photo.\($0.rawValue)" } + ["photo.personMatte"]

    /// The cell (or `photo`) a reference reads from: `mask` for `mask`, `photo` for `photo.skin`.
    public static func head(_ reference: String) -> String {
        reference.split(separator: ".", maxSplits: 1).first.map(String.init) ?? reference
    }

    /// The photo plane a reference names (`image` for `photo`), nil for anything that is not the photo.
    public static func planeName(_ reference: String) -> String? {
        if reference == "photo" { return "image" }
        guard reference.hasPrefix("photo.") else { return nil }
        return String(reference.dropFirst("photo.".count))
    }
}

extension PhotoReferences {
    /// The `photo.<plane>` references `photo` can render, in `all`'s order: the image, its depth (as depth and
    /// as disparity) and the subject mask made from it, and the mattes it carries (the learned one too). The
    /// page lists these in its photo facts (`references`) instead of working them out.
    public static func offered(by photo: Photo) -> [String] {
        var planes: Set<String> = ["image"]
        if photo.depth != nil { planes.formUnion(["depth", "disparity", "subject"]) }
        planes.formUnion(photo.mattes.map(\.kind.rawValue))
        if photo.personMatte != nil { planes.insert("personMatte") }
        return all.filter { $0.hasPrefix("photo.") && planes.contains(String($0.dropFirst("photo.".count))) }
    }
}
