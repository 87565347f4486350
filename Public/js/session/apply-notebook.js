import { stableStringify, structureOf } from '../notebook-graph.js';

/**
 * Makes `target` the session's notebook with as little work as it takes: a different photo is opened first;
 * a different shape (cells, inputs, notes, metadata) replaces the document (`setNotebook`, every preview asked
 * again); values alone go out as parameter changes, so only the cells they touch render again.
 * @param {import('../notebook-session.js').NotebookSession} session
 */
export async function applyNotebook(session, target) {
    const current = session.notebook;
    const photoChanged = stableStringify(target.photo) !== stableStringify(current.photo);
    if (photoChanged) {
        const opened = await session.socket.request('openPhoto', { photo: target.photo });
        session.photo = opened.photo;
        session.forgetPhotoState();
    }
    if (photoChanged || structureOf(target, null) !== structureOf(current, null) || stableStringify(target.metadata) !== stableStringify(current.metadata)) {
        await session.pushNotebook(structuredClone(target), { force: true });
        return;
    }
    for (const cell of target.cells ?? []) {
        const now = session.cell(cell.id)?.params ?? {};
        const wanted = cell.params ?? {};
        for (const name of new Set([...Object.keys(now), ...Object.keys(wanted)])) {
            if (stableStringify(now[name]) !== stableStringify(wanted[name])) session.edits.set(cell.id, name, wanted[name], { interactive: false });
        }
    }
    session.dispatchEvent(new CustomEvent('notebook', { detail: { force: true } }));
}
