/// Why a notebook could not be read or run; the message tells the user what to change.
public enum NotebookError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    /// A formula cell's line does not parse or names what is not there: where, and why.
    case formula(cell: String, FormulaError)

    public var description: String {
        switch self {
        case .invalid(let m): return "invalid notebook: \(m)"
        case let .formula(cell, error): return "invalid notebook: cell \"\(cell)\": formula \(error)"
        }
    }
}
