/// What the server knows of a notebook's cells and the page draws from, so no client keeps a graph of its own:
/// per cell, whether it has a picture, what kind, which cells it reads and which below re-render when it changes. Sent beside
/// every notebook the server hands out (docs/protocol.md, "The notebook's graph").
public struct NotebookGraph: Sendable, Equatable, Codable {
    public struct Node: Sendable, Equatable, Codable {
        /// Whether the cell has a picture to preview, crop or export.
        public var renders: Bool
        /// `image` or `plane` for a cell with a picture, when known before it renders (a formula reading a cell whose
        /// kind shows only in its render has none).
        public var output: String?
        /// The cells it reads itself (not through another cell), in the order it names them.
        public var reads: [String]
        /// Cells after it that read it directly or through other cells, in notebook order: what a change to it
        /// re-renders.
        public var dependents: [String]

        public init(renders: Bool, output: String?, reads: [String], dependents: [String]) {
            self.renders = renders
            self.output = output
            self.reads = reads
            self.dependents = dependents
        }
    }

    /// By cell id.
    public var cells: [String: Node]

    public init(cells: [String: Node]) {
        self.cells = cells
    }

    /// What a change to `cell` re-renders (none for a cell the notebook does not have).
    public func dependents(of cell: String) -> [String] { cells[cell]?.dependents ?? [] }
}
