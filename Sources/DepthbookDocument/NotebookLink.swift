/// Parameters of several cells that move as one (Big Head's Scale: the scaled subject, its matte and the plate
/// behind it must agree, or the head is clipped). The first member is the control a person sees; the others follow
/// it, each kept within its own range. The server resolves a link wherever a value changes, so every client, the
/// command line and the load test see the members in step. JSON: `{"label": "Scale", "params": ["bigger.scale", …]}`.
public struct NotebookLink: Sendable, Equatable, Codable {
    /// One member: a cell's parameter (`cell.name`; a cell id has no dot, so the last dot splits it).
    public struct Member: Sendable, Hashable {
        public var cell: String
        public var name: String

        public init(cell: String, name: String) {
            self.cell = cell
            self.name = name
        }

        /// `cell.name`, or nil when the text has no dot with something on each side.
        public init?(_ text: String) {
            guard let dot = text.lastIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex else { return nil }
            self.init(cell: String(text[..<dot]), name: String(text[text.index(after: dot)...]))
        }

        public var text: String { "\(cell).\(name)" }
    }

    public var label: String
    /// `cell.name` for each member, the leading one first.
    public var params: [String]

    public init(label: String, params: [String]) {
        self.label = label
        self.params = params
    }

    /// The members that parse (the validator refuses a link with any that does not).
    public var members: [Member] { params.compactMap(Member.init) }

    /// The member whose control the page shows.
    public var leader: Member? { members.first }
}
