/// A size in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixelCount: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)×\(height)" }

    /// The size scaled by `factor`, rounded to the nearest pixel and never below 1×1.
    public func scaled(by factor: Double) -> PixelSize {
        PixelSize(width: max(1, Int((Double(width) * factor).rounded())),
                  height: max(1, Int((Double(height) * factor).rounded())))
    }
}

/// An axis-aligned rectangle of whole pixels: columns `x..<x+width`, rows `y..<y+height`.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The rectangle covering a whole frame of `size`.
    public init(_ size: PixelSize) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var pixelCount: Int { width * height }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "(\(x),\(y) \(width)×\(height))" }

    /// The overlap of two rectangles (empty, at `x`,`y` of self, when they do not meet).
    public func intersection(_ other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        if x1 <= x0 || y1 <= y0 { return PixelRect(x: x0, y: y0, width: 0, height: 0) }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The rectangle grown by `dx` columns and `dy` rows on every side.
    public func insetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// Grown by `margin` pixels on every side (a negative inset).
    public func outset(by margin: Int) -> PixelRect { insetBy(dx: -margin, dy: -margin) }

    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }
}

extension Int {
    /// `value` rounded down and saturated to ±2^40 (NaN gives −2^40), for a pixel coordinate computed from
    /// parameters that is clamped into a frame next. `Int(_:)` traps on NaN or a value past Int's range, and a
    /// trap ends every session on the server; a saturated coordinate is clamped like any other.
    @inline(__always)
    public init(floorSaturating value: Double) {
        let limit = 1_099_511_627_776.0  // 2^40
        self = value >= -limit ? (value <= limit ? Int(value.rounded(.down)) : Int(limit)) : -Int(limit)
    }
}
