import DepthbookDocument
import DepthbookProtocol

/// A notebook's links against its cells, and how a value moves along one: the one place links are resolved, for
/// the socket, the store, bundled notebooks and the command line alike.
enum NotebookLinks {
    /// The table row a member follows: a number parameter of a step cell or a formula's slider; nil for a step of
    /// an effect this version does not know (its values are copied as they are).
    static func row(of member: NotebookLink.Member, in notebook: Notebook,
                    formulas: [String: Formula]) throws(NotebookError) -> EffectParameter? {
        guard let cell = notebook.cell(member.cell) else {
            throw .invalid("link member \"\(member.text)\" names no cell of the notebook")
        }
        let row: EffectParameter
        switch cell.kind {
        case .step:
            guard let effect = EffectCatalog.effect(cell.effect ?? "") else { return nil }
            guard let known = effect.description.parameter(member.name) else {
                throw .invalid("link member \"\(member.text)\": \(effect.description.id) has no parameter \"\(member.name)\"")
            }
            row = known
        case .formula:
            guard let slider = formulas[cell.id]?.sliders.first(where: { $0.name == member.name }) else {
                throw .invalid("link member \"\(member.text)\": the formula declares no slider \"\(member.name)\"")
            }
            row = slider.parameter
        default:
            throw .invalid("link member \"\(member.text)\": a \(cell.kindName) cell has no parameters")
        }
        guard row.kind == .number else {
            throw .invalid("link member \"\(member.text)\" is a \(row.kind.rawValue); only numbers are linked")
        }
        return row
    }

    /// Checks every link (sizes, members, no parameter in two links) and returns the notebook with each link's
    /// members following its leader's value, so a file edited by hand comes in step.
    static func checked(_ notebook: Notebook, formulas: [String: Formula], limits: NotebookLimits) throws(NotebookError) -> Notebook {
        guard notebook.links.count <= limits.maxLinks else {
            throw .invalid("a notebook has at most \(limits.maxLinks) links; this one has \(notebook.links.count)")
        }
        var taken = Set<NotebookLink.Member>()
        var result = notebook
        for link in notebook.links {
            guard link.label.utf8.count <= limits.maxValueLength else {
                throw .invalid("a link's label is longer than \(limits.maxValueLength) bytes")
            }
            guard (1...limits.maxLinkMembers).contains(link.params.count) else {
                throw .invalid("link \"\(link.label)\" has \(link.params.count) members; a link joins 1 to \(limits.maxLinkMembers)")
            }
            for text in link.params {
                guard let member = NotebookLink.Member(text) else {
                    throw .invalid("link member \"\(text)\" is not cell.parameter")
                }
                guard taken.insert(member).inserted else {
                    throw .invalid("\"\(text)\" is in two links (or twice in one)")
                }
                _ = try row(of: member, in: notebook, formulas: formulas)
            }
            if let leader = link.leader {
                result = following(result, link: link, value: result.cell(leader.cell)?.params?[leader.name], formulas: formulas)
            }
        }
        return result
    }

    /// `notebook` with every member of `link` set to `value` (a number kept within each member's range; nil: left
    /// out, so each takes its default or the photo's value).
    static func following(_ notebook: Notebook, link: NotebookLink, value: ParameterValue?,
                          formulas: [String: Formula]) -> Notebook {
        var result = notebook
        for member in link.members {
            guard let index = result.cells.firstIndex(where: { $0.id == member.cell }) else { continue }
            let followed = value.map { fitted($0, to: (try? row(of: member, in: notebook, formulas: formulas)) ?? nil) }
            // Left as it is when already in step (a cell without params keeps none).
            guard result.cells[index].params?[member.name] != followed else { continue }
            var params = result.cells[index].params ?? [:]
            params[member.name] = followed
            result.cells[index].params = params
        }
        return result
    }

    /// The links `cell`'s parameter `name` belongs to (at most one: the validator refuses a member in two).
    static func link(of cell: String, _ name: String, in notebook: Notebook) -> NotebookLink? {
        notebook.links.first { $0.members.contains(NotebookLink.Member(cell: cell, name: name)) }
    }

    private static func fitted(_ value: ParameterValue, to row: EffectParameter?) -> ParameterValue {
        guard case .number(let number) = value, let row else { return value }
        return .number(Swift.min(row.max ?? number, Swift.max(row.min ?? number, number)))
    }
}
