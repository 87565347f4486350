import DepthbookEffects
import DepthbookEngine

/// The facts about a photo the page shows, in the shape `depthbook inspect --json` prints, plus `source`.
public enum PhotoFacts {
    public static func json(_ photo: Photo, source: PhotoReference) -> JSONValue {
        var facts: [String: JSONValue] = [
            "width": .number(Double(photo.width)),
            "height": .number(Double(photo.height)),
            "orientation": .number(Double(photo.orientation.rawValue)),
            "colorSpace": .string(photo.colorSpace),
            "source": ReplyEncoder.jsonValue(source),
        ]
        if let depth = photo.depth {
            var d: [String: JSONValue] = [
                "kind": .string(depth.kind.rawValue),
                "width": .number(Double(depth.map.width)),
                "height": .number(Double(depth.map.height)),
                "accuracy": .string(depth.accuracy.rawValue),
                "filtered": .bool(depth.isFiltered),
                "holes": .number(Double(depth.map.holeCount)),
            ]
            if let range = depth.range {
                d["min"] = .number(Double(range.lowerBound))
                d["max"] = .number(Double(range.upperBound))
            }
            facts["depth"] = .object(d)
        }
        if !photo.mattes.isEmpty {
            facts["mattes"] = .array(photo.mattes.map {
                .object(["kind": .string($0.kind.rawValue), "width": .number(Double($0.plane.width)),
                         "height": .number(Double($0.plane.height))])
            })
        }
        if let c = photo.calibration {
            facts["calibration"] = .object([
                "referenceWidth": .number(c.referenceWidth), "referenceHeight": .number(c.referenceHeight),
                "fx": .number(c.fx), "fy": .number(c.fy), "cx": .number(c.cx), "cy": .number(c.cy),
                "lensDistortion": .bool(c.hasLensDistortion),
            ])
        }
        if !photo.faces.isEmpty {
            facts["faces"] = .array(photo.faces.map {
                .object(["x": .number($0.x), "y": .number($0.y), "w": .number($0.width), "h": .number($0.height)])
            })
        }
        return .object(facts)
    }
}
