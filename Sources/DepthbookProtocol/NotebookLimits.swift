/// How large a notebook may be. Checked wherever a notebook comes in (the socket, the store, bundled
/// files), so everything downstream — the graph walk, the recipe, the evaluation's stack — is bounded.
public struct NotebookLimits: Sendable, Equatable, Codable {
    public var maxCells = 200
    /// Characters in a cell's id (ASCII letters, digits, - and _).
    public var maxCellIDLength = 64
    /// The longest chain of cells each reading the one before (the depth of the recipe).
    public var maxChainDepth = 64
    public var maxParamsPerCell = 32
    public var maxInputsPerCell = 16
    /// Links (parameters of several cells moving as one) in a notebook, and parameters in one link.
    public var maxLinks = 16
    public var maxLinkMembers = 16
    /// Bytes (UTF-8) in a note's text, a title or description, a parameter's text value: bytes, not
    /// characters, so a name of combining marks cannot carry 600 KB under a 20,000-character limit.
    public var maxTextLength = 20_000
    public var maxValueLength = 1_024
    /// Arrays and objects inside one another in a message or a notebook file (its `metadata` included).
    /// Checked by a linear scan before any decoding: decoding a deep nest costs far more than its size.
    public var maxJSONNesting = 32
    /// Characters (bytes: formulas are ASCII) in a formula cell's line, checked before it is read.
    public var maxFormulaLength = 2_000
    /// Parentheses, calls and ?: branches inside one another in a formula: bounds the parser's recursion.
    public var maxFormulaNesting = 32
    /// Parts of a formula (numbers, names, sliders, operators, calls): bounds its program, hence the rows a
    /// render keeps for it (a register of 256 pixels × 3 floats per worker for each part or spread mask, at most).
    public var maxFormulaNodes = 500

    public init() {}
}
