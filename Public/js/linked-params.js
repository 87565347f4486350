/**
 * Linked parameters: a notebook's `links` (docs/notebook-format.md) join parameters of several cells that move
 * as one (Big Head's Scale: the scaled subject, its matte and the plate behind it must agree, or the head is
 * clipped):
 *
 *     "links": [ { "label": "Scale", "params": ["bigger.scale", "newMatte.scale", "behind.scale", "recipe.scale"] } ]
 *
 * The server resolves them: one `setParams` to any member sets them all (each within its own range), re-renders
 * what reads them and answers with the values it gave the others (`linked`), which the page puts into its copies,
 * so what it stores and undoes is what the server holds. The page shows the first member's control alone, under
 * the link's label; a link of one member only gives its control that label.
 */

/** The link `cellId.name` belongs to: its label, its leading member, the other members, or null. */
export function linkOf(notebook, cellId, name) {
    for (const link of Array.isArray(notebook?.links) ? notebook.links : []) {
        const members = (Array.isArray(link?.params) ? link.params : []).map(parseMember).filter(Boolean);
        if (!members.some((member) => member.cell === cellId && member.name === name)) continue;
        const leader = members[0];
        const others = members.filter((member) => !(member.cell === cellId && member.name === name));
        return { label: String(link.label ?? name), leader, others, leads: leader.cell === cellId && leader.name === name };
    }
    return null;
}

function parseMember(text) {
    const dot = String(text).lastIndexOf('.');
    return dot > 0 ? { cell: String(text).slice(0, dot), name: String(text).slice(dot + 1) } : null;
}
