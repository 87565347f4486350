/// One documented parameter of an engine filter: the domain the filter checks its values against (and
/// `FilterCatalog` lists). It has no label and no default: a filter takes every value from its caller. The page
/// never sees it: notebooks and sliders speak the effects' parameters (`EffectParameter` in DepthbookEffects,
/// where each user-facing range, default and label is declared once), which an effect turns into filter values
/// when it builds its recipe.
public struct ParameterInfo: Sendable, Equatable {
    public var name: String
    /// Allowed values, inclusive: what the filter can compute, not what a slider offers.
    public var range: ClosedRange<Double>
    /// "px" (pixels of the plane the filter acts on, scaled with the render), "EV", "%", "" (a factor)...
    public var unit: String
    public var doc: String

    public init(_ name: String, range: ClosedRange<Double>, unit: String = "", doc: String) {
        self.name = name
        self.range = range
        self.unit = unit
        self.doc = doc
    }

    /// Throws a message naming the filter and parameter when `value` is NaN or outside `range`.
    public func validate(_ value: Double, in filter: String) throws {
        guard !value.isNaN, range.contains(value) else {
            throw RenderError.badParameter(
                filter: filter, name: name,
                message: "\(value) is outside \(range.lowerBound)...\(range.upperBound)\(unit.isEmpty ? "" : " " + unit)")
        }
    }
}

/// What a filter is, for catalogs and documentation.
public struct FilterInfo: Sendable {
    /// Stable identifier used in cache keys ("gaussianBlur").
    public var name: String
    /// The closest Core Image filter, when there is one ("CIGaussianBlur").
    public var coreImageName: String?
    public var summary: String
    public var parameters: [ParameterInfo]

    public init(name: String, coreImageName: String?, summary: String, parameters: [ParameterInfo] = []) {
        self.name = name
        self.coreImageName = coreImageName
        self.summary = summary
        self.parameters = parameters
    }

    public func parameter(_ name: String) -> ParameterInfo? { parameters.first { $0.name == name } }

    /// Validates `value` against the parameter named `name` (which must be in the table).
    public func validate(_ name: String, _ value: Double) throws {
        guard let info = parameter(name) else {
            throw RenderError.badParameter(filter: self.name, name: name, message: "unknown parameter")
        }
        try info.validate(value, in: self.name)
    }
}
