/**
 * What the page needs to know about a notebook's shape (docs/notebook-format.md): which plane or cell a
 * reference names and which references a step may choose from. Which cells read which, which have a picture and
 * of what kind is the server's to say: it sends the notebook's `graph` beside every notebook (docs/protocol.md),
 * and the functions here only look it up. Pure functions over JSON; no DOM, no pixels.
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
 * Planes the open photo carries, as `photo.<plane>` references: the server's list in the photo facts
 * (`references`, docs/protocol.md), kept to `known` (the server's plane names, `planeNames`), with the sizes the
 * facts give (`depth`, `mattes`) for the page to show.
 * @returns {{reference: string, name: string, width?: number, height?: number, facts?: object}[]}
 */
export function photoPlanes(facts, known) {
    if (!facts || typeof facts !== 'object' || !Array.isArray(facts.references)) return [];
    const details = (name) => {
        if (name === 'image' || name === 'subject') return { width: facts.width, height: facts.height };
        if (name === 'depth' || name === 'disparity') return facts.depth ?? {};
        return (Array.isArray(facts.mattes) ? facts.mattes : []).find((matte) => matte?.kind === name) ?? {};
    };
    return facts.references
        .filter((reference) => typeof reference === 'string' && reference.startsWith('photo.'))
        .map((reference) => reference.slice('photo.'.length))
        .filter((name) => known.includes(name))
        .map((name) => { const plane = details(name); return { reference: `photo.${name}`, name, width: plane.width, height: plane.height, facts: plane }; })
        .sort((a, b) => known.indexOf(a.name) - known.indexOf(b.name));
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

/** The server's word on `cellId` in `graph` (`{renders, output, reads, dependents}`), or null. */
function nodeOf(graph, cellId) {
    return graph?.cells?.[cellId] ?? null;
}

/** Whether a cell has a picture of its own to preview (photo, view, step and formula cells). */
export function rendersImage(graph, cellId) {
    return Boolean(nodeOf(graph, cellId)?.renders);
}

/** Whether a reference's output is an RGB image or a single-channel plane ('image' when not known before it renders). */
export function outputKindOf(graph, reference) {
    const canonical = canonicalReference(reference);
    if (canonical.startsWith('photo.')) return canonical === 'photo.image' ? 'image' : 'plane';
    return nodeOf(graph, referenceHead(canonical))?.output ?? 'image';
}

/** Whether `cell` reads `cellId` itself (not through another cell). */
export function readsDirectly(graph, cellId, otherId) {
    return (nodeOf(graph, cellId)?.reads ?? []).includes(otherId);
}

/** Cells after `cellId` that read it directly or through other cells, in notebook order: what a change to it re-renders. */
export function dependentsOf(graph, cellId) {
    return nodeOf(graph, cellId)?.dependents ?? [];
}

/**
 * References a step cell at `index` may read for an input slot of `kind` ('image' or 'plane'): photo planes
 * the photo has among `known` (`planeNames`), then every earlier cell with a picture of that kind (by `graph`).
 */
export function choicesFor(notebook, graph, facts, known, index, kind) {
    const choices = [];
    for (const plane of photoPlanes(facts, known)) {
        if ((plane.name === 'image') === (kind === 'image')) choices.push(plane.reference);
    }
    for (const cell of (notebook.cells ?? []).slice(0, index)) {
        if (!rendersImage(graph, cell.id)) continue;
        if (outputKindOf(graph, cell.id) === kind) choices.push(cell.id);
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

/** The cell that shows the notebook's result: the one called `result`, else the last cell with a picture. */
export function outputCell(notebook, graph) {
    const cells = (notebook?.cells ?? []).filter((cell) => rendersImage(graph, cell.id) && cell.kind !== 'photo');
    return (cells.find((cell) => cell.id === 'result') ?? cells.at(-1))?.id ?? null;
}
