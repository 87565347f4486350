/**
 * Linked parameters: a notebook may say, in its free-form metadata, that several cells' parameters move
 * together, so one slider drives them all (Big Head's Scale: the scaled subject, its matte and the plate
 * behind it must agree, or the head is clipped):
 *
 *     "metadata": { "links": [ { "label": "Scale", "params": ["bigger.scale", "newMatte.scale", "behind.scale"] } ] }
 *
 * Moving any of them sets the others to the same value (kept within each one's range) in the same frame.
 */

/** The link `cellId.name` belongs to: its label and the other members, or null. */
export function linkOf(notebook, cellId, name) {
    for (const link of Array.isArray(notebook?.metadata?.links) ? notebook.metadata.links : []) {
        const members = (Array.isArray(link?.params) ? link.params : []).map(parseMember).filter(Boolean);
        if (!members.some((member) => member.cell === cellId && member.name === name)) continue;
        const others = members.filter((member) => !(member.cell === cellId && member.name === name));
        return { label: String(link.label ?? name), others };
    }
    return null;
}

function parseMember(text) {
    const dot = String(text).lastIndexOf('.');
    return dot > 0 ? { cell: String(text).slice(0, dot), name: String(text).slice(dot + 1) } : null;
}

/** `value` as the linked parameter takes it: a number within its own range; other types as they are. */
export function fitTo(descriptor, value) {
    if (typeof value !== 'number' || !descriptor) return value;
    return Math.min(Number(descriptor.max ?? value), Math.max(Number(descriptor.min ?? value), value));
}
