import DepthbookEngine
import Foundation

/// The facts about a loaded photo that `depthbook inspect --json` prints and the studio sends as
/// `<photo facts>`: upright sizes, the depth summary, mattes, calibration and faces. Absent parts are nil
/// and left out of the JSON.
public struct PhotoFacts: Codable, Sendable, Equatable {
    public struct Depth: Codable, Sendable, Equatable {
        public var kind: String
        public var width: Int
        public var height: Int
        public var min: Double
        public var max: Double
        public var accuracy: String
        public var filtered: Bool
        public var holes: Int
        /// For a depth map from a picture of its own: "brighterNearer" or "brighterFarther", as its grey was read.
        public var polarity: String?
        /// For such a map: true when Depthbook decided the polarity, false when it was given.
        public var polarityDetected: Bool?
        /// For a photo taken without depth: how its depth was estimated ("estimated (from the person matte)"),
        /// the words the page and `inspect` show. Absent for measured depth.
        public var estimated: String?
    }

    public struct MatteFacts: Codable, Sendable, Equatable {
        public var kind: String
        public var width: Int
        public var height: Int
    }

    public struct Calibration: Codable, Sendable, Equatable {
        public var referenceWidth: Double
        public var referenceHeight: Double
        public var fx: Double
        public var fy: Double
        public var cx: Double
        public var cy: Double
        /// Whether the calibration carries a lens distortion description at all.
        public var lensDistortion: Bool
        /// The largest radial magnification it describes, in percent (0: a lens described as perfect).
        public var lensDistortionPercent: Double?
    }

    public struct Face: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var w: Double
        public var h: Double
        /// true when the face detector found it; absent for faces the file names.
        public var detected: Bool?
    }

    public var width: Int
    public var height: Int
    public var orientation: Int
    public var colorSpace: String
    public var depth: Depth?
    public var mattes: [MatteFacts]?
    public var calibration: Calibration?
    public var faces: [Face]?

    public init(_ photo: Photo) {
        width = photo.width
        height = photo.height
        orientation = photo.orientation.rawValue
        colorSpace = photo.colorSpace
        if let d = photo.depth, let range = d.range {
            // Floats printed at their own precision (0.554199, not 0.5541989803314209).
            depth = Depth(kind: d.kind.rawValue, width: d.map.width, height: d.map.height, min: Double("\(range.lowerBound)") ?? 0,
                          max: Double("\(range.upperBound)") ?? 0, accuracy: d.accuracy.rawValue, filtered: d.isFiltered, holes: d.map.holeCount,
                          polarity: d.greyPolarity.map { $0.brighterIsNearer ? "brighterNearer" : "brighterFarther" },
                          polarityDetected: d.greyPolarity?.detected, estimated: d.estimate?.label)
        }
        // The learned person matte is listed as a matte of its own kind, so the page shows it as `photo.personMatte`.
        let listed = photo.mattes.map { MatteFacts(kind: $0.kind.rawValue, width: $0.plane.width, height: $0.plane.height) }
            + (photo.personMatte.map { [MatteFacts(kind: "personMatte", width: $0.width, height: $0.height)] } ?? [])
        mattes = listed.isEmpty ? nil : listed
        if let c = photo.calibration {
            calibration = Calibration(referenceWidth: c.referenceWidth, referenceHeight: c.referenceHeight, fx: c.fx, fy: c.fy,
                                      cx: c.cx, cy: c.cy, lensDistortion: c.hasLensDistortion,
                                      lensDistortionPercent: LensDistortionModel(c).map { ($0.largestMagnification * 1e4).rounded() / 100 })
        }
        // Faces only: the file's other regions (an iPhone's "Focus" area, often the face's own box) are not faces.
        let faceRegions = photo.faces.filter { $0.type.lowercased() == "face" }
        faces = faceRegions.isEmpty ? nil : faceRegions.map { Face(x: $0.x, y: $0.y, w: $0.width, h: $0.height, detected: $0.detected ? true : nil) }
    }

    /// The facts as compact JSON text with keys in a stable order.
    public func json(pretty: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }
}
