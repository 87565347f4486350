/**
 * `<db-add-cell>`: "Add cell" between cells. Asks for a kind (and for a step, which effect), then builds a
 * new cell with a fresh id, inputs wired to the nearest earlier output of the right kind, and default
 * parameters (left out, so the server fills them in).
 */
import { h, uniqueId } from '../dom.js';
import { choicesFor } from '../notebook-graph.js';

export class AddCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {number} index where the new cell goes
     * @param {(cell: object, index: number) => void} insert
     */
    attach(session, index, insert) {
        const kindId = uniqueId('new-kind');
        const effectId = uniqueId('new-effect');
        const kind = h('select', { id: kindId },
            h('option', { value: 'step', text: 'Step (an effect)' }),
            h('option', { value: 'view', text: 'View (a plane or result)' }),
            h('option', { value: 'formula', text: 'Formula (your own one-line step)' }),
            h('option', { value: 'note', text: 'Note' }));
        const effect = h('select', { id: effectId },
            ...[...session.catalog.values()].map((entry) => h('option', { value: entry.id, text: entry.title ?? entry.id })));
        const effectField = h('div', { class: 'field' }, h('label', { for: effectId, text: 'Effect' }), effect);
        kind.addEventListener('change', () => { effectField.hidden = kind.value !== 'step'; });
        const form = h('form', { class: 'add-cell-form', hidden: true },
            h('div', { class: 'field' }, h('label', { for: kindId, text: 'Kind' }), kind),
            effectField,
            h('button', { type: 'submit' }, 'Add'),
            h('button', { type: 'button', onclick: () => { form.hidden = true; open.hidden = false; } }, 'Cancel'));
        const open = h('button', {
            type: 'button', class: 'add-cell-open', 'aria-label': `Add a cell at position ${index + 1}`,
            onclick: () => { form.hidden = false; open.hidden = true; kind.focus(); },
        }, '+ Add cell');
        form.addEventListener('submit', (event) => {
            event.preventDefault();
            insert(newCell(session, index, kind.value, effect.value), index);
        });
        this.replaceChildren(open, form);
        return this;
    }
}

/** A fresh cell of `kind` for position `index`, wired to what comes before it. */
export function newCell(session, index, kind, effectId) {
    const { notebook, graph, catalog, photo, planeNames: known } = session;
    const id = freshId(notebook, kind === 'step' ? effectId : kind);
    if (kind === 'note') return { id, kind, text: '' };
    // A formula starts as the photo itself with one slider, so it renders at once and shows how sliders read.
    if (kind === 'formula') return { id, kind, formula: 'image * $gain(0..2 = 1)', params: {} };
    if (kind === 'view') {
        const earlier = choicesFor(notebook, graph, photo, known, index, 'image');
        return { id, kind, input: earlier[earlier.length - 1] ?? 'photo.image', histogram: false };
    }
    const effect = catalog.get(effectId);
    const inputs = {};
    for (const slot of effect?.inputs ?? []) {
        const choices = choicesFor(notebook, graph, photo, known, index, slot.kind === 'plane' ? 'plane' : 'image');
        if (choices.length > 0) inputs[slot.name] = choices[choices.length - 1];
    }
    return { id, kind: 'step', effect: effectId, inputs, params: {} };
}

function freshId(notebook, base) {
    const stem = String(base).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 48) || 'cell';
    const taken = new Set((notebook.cells ?? []).map((cell) => cell.id));
    for (let n = 1; ; n += 1) {
        const candidate = `${stem}-${n}`;
        if (!taken.has(candidate)) return candidate;
    }
}

customElements.define('db-add-cell', AddCell);
