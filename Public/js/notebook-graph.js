/**
 * What the page needs to know about a notebook's shape (docs/notebook-format.md): which plane or cell a
 * reference names, which cells read which, and which references a step may choose from. Pure functions over
 * the notebook JSON; no DOM, no pixels.
 */

/** `photo` and `photo.image` are the same thing; everything else is kept as written. */
export function canonicalReference(reference) {
    return reference === 'photo' ? 'photo.image' : reference;
}

/** The cell id (or `photo`) a reference starts with. */
export function referenceHead(reference) {
    const dot = reference.indexOf('.');
    return dot < 0 ? reference : reference.slice(0, dot);
}

/**
 * Names of the photo planes a reference may name, from the server's `hello` (`planes`: `photo.<name>`
 * references, in the server's order); the page keeps no list of its own.
 */
export function planeNames(helloPlanes) {
    return (helloPlanes ?? []).filter((reference) => reference.startsWith('photo.')).map((reference) => reference.slice('photo.'.length));
}

/**
 * Planes the open photo carries, as `photo.<plane>` references, read from the photo facts and kept to `known`
 * (the server's plane names, `planeNames`). The facts are what `depthbook inspect --json` prints; the page
 * accepts either a `planes` list or `depth`/`mattes`.
 * @returns {{reference: string, name: string, width?: number, height?: number, facts?: object}[]}
 */
export function photoPlanes(facts, known) {
    if (!facts || typeof facts !== 'object') return [];
    const planes = [];
    const add = (name, details = {}) => {
        if (!known.includes(name) || planes.some((plane) => plane.name === name)) return;
        planes.push({ reference: `photo.${name}`, name, width: details.width, height: details.height, facts: details });
    };
    add('image', { width: facts.width, height: facts.height });
    if (Array.isArray(facts.planes)) {
        for (const plane of facts.planes) {
            if (typeof plane === 'string') add(plane);
            else if (plane && typeof plane === 'object') add(plane.name ?? plane.kind, plane);
        }
    }
    if (facts.depth && typeof facts.depth === 'object') {
        add('disparity', facts.depth);
        add('depth', facts.depth);
        // The subject mask the server makes from depth: there whenever depth is, at the image's size.
        add('subject', { width: facts.width, height: facts.height });
    }
    if (Array.isArray(facts.mattes)) {
        for (const matte of facts.mattes) {
            if (typeof matte === 'string') add(matte);
            else if (matte && typeof matte === 'object') add(matte.kind ?? matte.name, matte);
        }
    }
    return planes.sort((a, b) => known.indexOf(a.name) - known.indexOf(b.name));
}

/**
 * What to ask a preview of to show `reference`: the photo cell itself for the image (every server renders
 * a photo cell), the cell for a cell reference, and the plane reference as written for other planes.
 */
export function previewTarget(notebook, reference) {
    const canonical = canonicalReference(reference);
    if (canonical === 'photo.image') {
        return (notebook.cells ?? []).find((cell) => cell.kind === 'photo')?.id ?? canonical;
    }
    if (canonical.startsWith('photo.')) return canonical;
    return referenceHead(canonical);
}

/** Kinds of cell with a picture of their own (the server's `Cell.Kind.rendersImage`). */
const RENDERED_KINDS = new Set(['photo', 'view', 'step', 'formula']);

/**
 * The names a formula cell's line mentions (the cells it may read, among the language's own words): enough to
 * know what a change re-renders; the server parses the line and decides what it reads.
 */
function formulaNames(cell) {
    return cell.kind === 'formula' ? String(cell.formula ?? '').match(/[A-Za-z_][A-Za-z0-9_-]*/g) ?? [] : [];
}

/** Whether a reference's output is an RGB image or a single-channel plane. */
export function outputKindOf(notebook, catalog, reference) {
    const canonical = canonicalReference(reference);
    if (canonical.startsWith('photo.')) return canonical === 'photo.image' ? 'image' : 'plane';
    const cell = (notebook.cells ?? []).find((candidate) => candidate.id === referenceHead(canonical));
    if (!cell) return 'image';
    if (cell.kind === 'step') return catalog.get(cell.effect)?.output ?? 'image';
    if (cell.kind === 'view' && typeof cell.input === 'string') return outputKindOf(notebook, catalog, cell.input);
    return 'image';
}

/**
 * References a step cell at `index` may read for an input slot of `kind` ('image' or 'plane'): photo planes
 * the photo has among `known` (`planeNames`), then every earlier view or step cell whose output is of that kind.
 */
export function choicesFor(notebook, catalog, facts, known, index, kind) {
    const choices = [];
    for (const plane of photoPlanes(facts, known)) {
        if ((plane.name === 'image') === (kind === 'image')) choices.push(plane.reference);
    }
    for (const cell of (notebook.cells ?? []).slice(0, index)) {
        if (!RENDERED_KINDS.has(cell.kind)) continue;
        if (outputKindOf(notebook, catalog, cell.id) === kind) choices.push(cell.id);
    }
    return choices;
}

/**
 * The notebook without its parameter values: two notebooks with the same structure show the same cells and
 * controls, so a change of values alone needs no re-render.
 */
export function structureOf(notebook, photo) {
    const cells = (notebook?.cells ?? []).map(({ params, ...rest }) => rest);
    return stableStringify([notebook?.name, notebook?.title, notebook?.description, notebook?.photo, cells, photo ?? null]);
}

/**
 * JSON with object keys sorted, so two documents that differ only in key order (the server's encoder does
 * not promise one) compare equal.
 */
export function stableStringify(value) {
    return JSON.stringify(value, (key, item) => (item && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.keys(item).sort().map((name) => [name, item[name]]))
        : item));
}

/**
 * Cells after `cellId` that read it directly or through other cells, in notebook order: what a change to it
 * re-renders (the server's `Notebook.dependents`).
 */
export function dependentsOf(notebook, cellId) {
    const affected = new Set([cellId]);
    const result = [];
    for (const cell of notebook?.cells ?? []) {
        if (cell.id === cellId) continue;
        const reads = [...Object.values(cell.inputs ?? {}), ...(cell.input ? [cell.input] : []), ...formulaNames(cell)].map(referenceHead);
        if (reads.some((head) => affected.has(head))) {
            affected.add(cell.id);
            result.push(cell.id);
        }
    }
    return result;
}

/** The cell that shows the notebook's result: the one called `result`, else the last cell with a picture. */
export function outputCell(notebook) {
    const cells = (notebook?.cells ?? []).filter((cell) => RENDERED_KINDS.has(cell.kind) && cell.kind !== 'photo');
    return (cells.find((cell) => cell.id === 'result') ?? cells.at(-1))?.id ?? null;
}
