/// A face (or other named region) in upright image pixels, from the photo's XMP (mwg-rs regions) or found
/// in the picture by a face detector.
public struct FaceRegion: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// The region's type as written ("Face", "Focus", ...).
    public var type: String
    /// Found by the face detector rather than read from the file.
    public var detected: Bool

    public init(x: Double, y: Double, width: Double, height: Double, type: String = "Face", detected: Bool = false) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.type = type
        self.detected = detected
    }

    enum CodingKeys: String, CodingKey { case x, y, width, height, type, detected }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
                  width: try c.decode(Double.self, forKey: .width), height: try c.decode(Double.self, forKey: .height),
                  type: try c.decode(String.self, forKey: .type), detected: try c.decodeIfPresent(Bool.self, forKey: .detected) ?? false)
    }

    public var centerX: Double { x + width / 2 }
    public var centerY: Double { y + height / 2 }
}
