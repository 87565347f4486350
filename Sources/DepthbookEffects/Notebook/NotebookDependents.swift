extension Notebook {
    /// Cells after `cell` that read it directly or through other cells, in notebook order: what a change to
    /// `cell` re-renders.
    public func dependents(of cell: String) -> [String] {
        var affected: Set<String> = [cell]
        var result: [String] = []
        for other in cells where other.id != cell {
            let reads = other.references.map(PhotoReferences.head)
            if reads.contains(where: affected.contains) {
                affected.insert(other.id)
                result.append(other.id)
            }
        }
        return result
    }
}
