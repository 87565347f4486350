import DepthbookDocument
import DepthbookEngine

/// Turns a notebook's cells into engine nodes for one photo, following references up the notebook.
/// Each cell is built once per call, so a cell read by several later ones is one shared node (and one
/// cache entry).
struct RecipeBuilder {
    /// Checked when it came in (`NotebookValidator`): references, step inputs, parameters and formulas. What is
    /// left to find out here is what only the photo tells (a plane it lacks) and the kind of a cell whose kind
    /// shows only once it is built.
    let checked: CheckedNotebook
    let context: EffectContext
    private var built: [String: BuiltNode] = [:]
    /// What the page should tell the user about how this photo was handled (a matte stood in for, ...).
    private(set) var notes: Set<String> = []

    init(notebook: CheckedNotebook, context: EffectContext) {
        self.checked = notebook
        self.context = context
    }

    var notebook: Notebook { checked.notebook }

    /// A plane reference (`photo.skin`) or a cell id.
    mutating func build(_ reference: String) throws -> BuiltNode {
        if reference == "photo" || reference.hasPrefix("photo.") { return try plane(reference) }
        if let known = built[reference] { return known }
        guard let cell = notebook.cell(reference) else { throw EffectError.unknownCell(reference) }
        let result: BuiltNode
        switch cell.kind {
        case .photo: result = try plane("photo.image")
        case .view: result = try build(cell.input ?? "photo.image")
        case .step: result = try step(cell)
        case .formula: result = try formula(cell)
        case .note, .unsupported: throw EffectError.notRenderable(cell.id)
        }
        built[reference] = result
        return result
    }

    /// The step's cell, its effect, and the built inputs (for histograms of what a threshold cut).
    mutating func stepInputs(_ cell: Cell) throws -> (any Effect.Type, EffectInputs) {
        guard let name = cell.effect, let effect = EffectCatalog.effect(name) else {
            throw EffectError.unknownEffect(cell.effect ?? "")
        }
        let d = effect.description
        let given = cell.inputs ?? [:]
        var slots = [String: BuiltNode]()
        // The validator saw every slot named; one left unconnected is reported by the effect that needs it.
        for input in d.inputs {
            guard let reference = given[input.name] else { continue }
            let node: BuiltNode
            do {
                node = try build(reference)
            } catch EffectError.missingPlane(let plane) where input.optional {
                // An optional input bound to a plane this photo lacks is left out, not a failure.
                notes.insert("This photo has no \(plane); cells that can do without it render without it.")
                continue
            }
            // The validator checked the kind wherever the notebook tells it; a formula reading a cell whose kind
            // shows only once built is known here first.
            let kind: EffectInput.Kind = node.node.kind == .image ? .image : .plane
            guard kind == input.kind else {
                throw EffectError.badInput(effect: d.id, message: input.mismatch(reference, gives: kind))
            }
            slots[input.name] = node
        }
        return (effect, EffectInputs(effect: d.id, slots: slots))
    }

    private mutating func step(_ cell: Cell) throws -> BuiltNode {
        let (effect, inputs) = try stepInputs(cell)
        let params = ResolvedParameters(cell.params ?? [:], for: effect.description)
        do {
            let built = try effect.build(inputs, params, context)
            notes.formUnion(built.notes)
            return built
        } catch let error as RenderError {
            throw EffectError(error)
        }
    }

    mutating func plane(_ reference: String) throws -> BuiltNode {
        let name = PhotoReferences.planeName(reference) ?? reference
        let photo = context.photo
        switch name {
        case "image":
            return BuiltNode(try Primitives.photo(context, .image), role: .image)
        case "subject":
            guard photo.depth != nil else { throw EffectError.missingPlane(reference) }
            return BuiltNode(try SubjectPlane.mask(context), role: .mask)
        case "personMatte":
            guard let matte = photo.personMatte else { throw EffectError.missingPlane(reference) }
            // It covers the whole photo (the network's input was stretched a little to its shape): it stands
            // where the image is, as a depth map does.
            let source = try PlaneSource(matte, id: "personMatte:\(context.photoID)", stretchedTo: PixelSize(width: photo.width, height: photo.height))
            return BuiltNode(try Node(source), role: .mask)
        case "disparity", "depth":
            guard let depth = photo.depth else { throw EffectError.missingPlane(reference) }
            if depth.estimate != nil { notes.insert(Self.estimatedDepthNote) }
            let kind: DepthKind = name == "depth" ? .depth : .disparity
            return BuiltNode(try Primitives.photo(context, kind == .depth ? .depth : .disparity), role: .depth(kind))
        default:
            guard let kind = MatteKind(rawValue: name) else {
                throw EffectError.badRequest("\"\(reference)\" is not a photo plane ("
                    + PhotoReferences.all.dropFirst().joined(separator: ", ") + ")")
            }
            if photo.matte(kind) == nil, kind == .portraitEffectsMatte, photo.depth != nil {
                // The person effects need only a subject mask: without the matte, one from depth stands in.
                notes.insert(SubjectPlane.note(context))
                return BuiltNode(try SubjectPlane.mask(context), role: .mask)
            }
            guard photo.matte(kind) != nil else { throw EffectError.missingPlane(reference) }
            return BuiltNode(try Primitives.photo(context, .matte(kind)), role: .mask)
        }
    }
}

extension RecipeBuilder {
    /// Said once on a photo taken without depth, whose depth the effects read was estimated.
    static let estimatedDepthNote = "This photo was taken without depth: its depth is estimated from the person matte (the person in front, the ground rising toward the bottom of the frame, a soft falloff behind the person). Effects that need measured depth (point cloud, dolly zoom) are not available, and exports do not carry the estimate."
}

extension EffectError {
    /// The engine's errors, in the effects' terms.
    init(_ error: RenderError) {
        switch error {
        case .cancelled: self = .cancelled
        case .missingPlane(let plane): self = .missingPlane(plane)
        default: self = .engine(error.description)
        }
    }
}
