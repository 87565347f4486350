/**
 * `<db-view-cell>`: shows any plane or intermediate result (its `input`), with its histogram when the cell
 * asks for one (and the threshold marker a later step puts on it, when the server reports one).
 */
import { h, uniqueId } from '../dom.js';
import { choicesFor, outputKindOf, photoPlanes } from '../notebook-graph.js';
import { referencePicker } from './reference-picker.js';
import { referenceLabel } from '../cell-names.js';
import { OutputPanel } from './output-panel.js';

export class ViewCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {object} cell
     * @param {number} index
     * @param {(change: (cell: object) => void) => void} edit
     */
    attach(session, cell, index, edit) {
        const { notebook, graph, photo, planeNames: known } = session;
        const choices = [
            ...photoPlanes(photo, known).map((plane) => plane.reference),
            ...choicesFor(notebook, graph, photo, known, index, 'image').filter((reference) => !reference.startsWith('photo.')),
            ...choicesFor(notebook, graph, photo, known, index, 'plane').filter((reference) => !reference.startsWith('photo.')),
        ];
        const controls = h('div', { class: 'cell-controls' },
            referencePicker('Shows', choices, cell.input, false, (reference) => edit((draft) => { draft.input = reference; }), !session.canEdit, (reference) => referenceLabel(session, reference)));
        if (session.canEdit) {
            const id = uniqueId('histogram');
            const box = h('input', { type: 'checkbox', id, checked: Boolean(cell.histogram) });
            box.addEventListener('change', () => edit((draft) => { draft.histogram = box.checked; }));
            controls.append(h('div', { class: 'field checkbox-field' }, box, h('label', { for: id, text: 'Histogram' })));
        }
        const kind = cell.input ? outputKindOf(graph, cell.input) : 'image';
        const output = new OutputPanel().attach({
            session, cellId: cell.id, label: `view of ${cell.input ?? 'nothing'}`, before: null,
            histogram: cell.histogram ? 'always' : 'never', exports: [kind === 'plane' ? 'png' : 'jpeg'],
        });
        this.replaceChildren(controls, output);
        return this;
    }
}

customElements.define('db-view-cell', ViewCell);
