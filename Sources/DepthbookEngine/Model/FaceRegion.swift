/// A face (or other named region) in upright image pixels, from the photo's XMP (mwg-rs regions).
public struct FaceRegion: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// The region's type as written ("Face", "Focus", ...).
    public var type: String

    public init(x: Double, y: Double, width: Double, height: Double, type: String = "Face") {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.type = type
    }

    public var centerX: Double { x + width / 2 }
    public var centerY: Double { y + height / 2 }
}
