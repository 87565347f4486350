/**
 * `<db-notebook>`: the notebook as a column of cells. Renders from the session's document whenever it is
 * replaced, and turns structural edits (add, remove, reorder, change a note, an input, a histogram) into a
 * whole new document for `setNotebook`. Errors from a refused edit show in the cell concerned.
 */
import { h } from './dom.js';
import { CellCard } from './cells/cell-card.js';
import { NoteCell } from './cells/note-cell.js';
import { PhotoCell } from './cells/photo-cell.js';
import { ViewCell } from './cells/view-cell.js';
import { FormulaCell } from './cells/formula-cell.js';
import { StepCell } from './cells/step-cell.js';
import { UnsupportedCell } from './cells/unsupported-cell.js';
import { AddCell } from './widgets/add-cell.js';
import { ResultHero } from './result-hero.js';
import { dependentsOf, readsDirectly, referenceHead, stableStringify, structureOf } from './notebook-graph.js';
import { ask } from './widgets/ask-dialog.js';
import { cellTitle } from './cell-names.js';

/** What makes the cells' elements: the structure without formula lines, which their cells show in place. */
function shapeOf(notebook, photo) {
    return structureOf({ ...notebook, cells: (notebook?.cells ?? []).map(({ formula, ...rest }) => rest) }, photo);
}

export class NotebookView extends HTMLElement {
    /**
     * @param {import('./notebook-session.js').NotebookSession} session
     * @param {import('./session-store.js').SessionStore} store
     */
    attach(session, store) {
        this.session = session;
        this.store = store;
        this.collapsed = new Set(store.load().collapsed ?? []);
        session.addEventListener('notebook', (event) => this.render(event.detail?.force));
        session.addEventListener('photo', () => this.showPhotoFacts());
        return this;
    }

    /** The photo's facts changed under the same notebook: only the photo cells show them anew (rebuilding every
     * cell would move the page and take the focus from whoever is typing). */
    showPhotoFacts() {
        const { notebook, photo } = this.session;
        if (!notebook || this.structure === undefined) return;
        for (const element of this.querySelectorAll('db-photo-cell')) {
            const cell = notebook.cells?.find((candidate) => candidate.id === element.closest('db-cell')?.dataset.cell);
            if (cell) element.attach(this.session, cell);
        }
        this.structure = structureOf(notebook, photo);
        this.shape = shapeOf(notebook, photo);
    }

    /** Re-renders the cells, unless only parameter values changed: then the controls just show the new values. */
    render(force = false) {
        const { notebook, photo } = this.session;
        if (!notebook) return;
        const structure = structureOf(notebook, photo);
        if (structure === this.structure) {
            this.showValues(force);
            return;
        }
        // Only formula lines changed (one being typed, an undo of one): those cells take them in place. Rebuilding
        // every cell took the focus from the line being typed in, moved the page, and sent the rest of what was
        // typed to the page's shortcuts ("p" of "disparity" turned presenter mode on).
        const shape = shapeOf(notebook, photo);
        if (shape === this.shape && this.showFormulas(notebook, force)) {
            this.structure = structure;
            this.showValues(force);
            return;
        }
        this.structure = structure;
        this.shape = shape;
        const cells = notebook.cells ?? [];
        const list = h('ol', { class: 'cells', 'aria-label': 'Cells' });
        cells.forEach((cell, index) => {
            if (this.session.canEdit) list.append(h('li', { class: 'add-slot' }, new AddCell().attach(this.session, index, (fresh, at) => this.insert(fresh, at))));
            list.append(h('li', { class: 'cell-slot' }, this.card(cell, index, cells.length)));
        });
        if (this.session.canEdit) list.append(h('li', { class: 'add-slot' }, new AddCell().attach(this.session, cells.length, (fresh, at) => this.insert(fresh, at))));
        this.replaceChildren(
            h('header', { class: 'notebook-header' },
                h('h1', { class: 'notebook-title', text: notebook.title || notebook.name || 'Untitled notebook' }),
                notebook.description ? h('p', { class: 'notebook-description', text: notebook.description }) : null,
                // A shared link opens on its result, the recipe below it.
                this.session.shared ? new ResultHero().attach(this.session) : null),
            list,
        );
        this.dispatchEvent(new CustomEvent('rendered', { bubbles: true }));
    }

    /**
     * Hands each formula cell its line as the notebook now has it (`force`, an undo: even the line being typed
     * in); false when one is not on the page.
     */
    showFormulas(notebook, force = false) {
        const formulas = (notebook.cells ?? []).filter((cell) => cell.kind === 'formula');
        const elements = formulas.map((cell) => this.querySelector(`db-cell[data-cell="${CSS.escape(cell.id)}"] db-formula-cell`));
        if (elements.some((element) => !element)) return false;
        formulas.forEach((cell, index) => elements[index].showFormula(cell, force));
        return true;
    }

    /** `force`: every control shows the notebook's value, even one holding text not yet sent (after undo). */
    showValues(force = false) {
        for (const cell of this.session.notebook.cells ?? []) {
            if (cell.kind !== 'step') continue;
            const card = this.querySelector(`db-cell[data-cell="${CSS.escape(cell.id)}"]`);
            const effect = this.session.catalog.get(cell.effect);
            for (const descriptor of effect?.parameters ?? []) {
                const control = card?.querySelector(`db-param[data-param="${CSS.escape(descriptor.name)}"]`);
                if (control && cell.params?.[descriptor.name] === undefined && control.leaveToPhoto()) continue;
                const value = cell.params?.[descriptor.name] ?? descriptor.default;
                if (control && (force || stableStringify(control.value) !== stableStringify(value))) control.setValue(value);
            }
        }
    }

    card(cell, index, count) {
        const session = this.session;
        const edit = (change, key) => this.editCell(cell.id, change, key);
        let content;
        const title = cellTitle(session, cell);
        let references = [cell.id];
        switch (cell.kind) {
            case 'note':
                content = new NoteCell().attach(session, cell, edit);
                break;
            case 'photo':
                content = new PhotoCell().attach(session, cell);
                break;
            case 'view':
                content = new ViewCell().attach(session, cell, index, edit);
                break;
            case 'step':
                content = new StepCell().attach(session, cell, index, edit);
                break;
            case 'formula':
                content = new FormulaCell().attach(session, cell, index, edit);
                break;
            default:
                content = new UnsupportedCell().attach(cell);
        }
        return new CellCard().attach({
            session, cell, index, count, content, title, references,
            collapsed: this.collapsed.has(cell.id),
            actions: {
                move: (id, delta) => this.move(id, delta),
                remove: (id) => this.remove(id),
                toggle: (id, collapsed) => this.toggle(id, collapsed),
                pin: (id) => document.querySelector('db-pinned')?.toggle(id),
            },
        });
    }

    /** Applies `change` to a copy of the cell and sends the new document. */
    /** `key`: edits under the same key in quick succession are one step to undo (`EditHistory.replaced`). */
    editCell(cellId, change, key = null) {
        const draft = structuredClone(this.session.notebook);
        const cell = draft.cells.find((candidate) => candidate.id === cellId);
        if (!cell) return;
        change(cell);
        this.submit(draft, cellId, `the change to ${cellId}`, undefined, key);
    }

    insert(cell, index) {
        const draft = structuredClone(this.session.notebook);
        draft.cells.splice(index, 0, cell);
        this.submit(draft, null, `adding ${cell.id}`);
    }

    move(cellId, delta) {
        const draft = structuredClone(this.session.notebook);
        const from = draft.cells.findIndex((cell) => cell.id === cellId);
        const to = from + delta;
        if (from < 0 || to < 0 || to >= draft.cells.length) return;
        const [cell] = draft.cells.splice(from, 1);
        draft.cells.splice(to, 0, cell);
        this.submit(draft, cellId, `moving ${cellId}`, () => this.querySelector(`db-cell[data-cell="${CSS.escape(cellId)}"] .cell-menu summary`)?.focus());
    }

    /**
     * Removes a cell at once (Undo brings it back); a cell others read is asked about first, naming them, and
     * goes with every cell that reads it, directly or through others (the server refuses a dangling input).
     */
    async remove(cellId) {
        const users = dependentsOf(this.session.graph, cellId);
        // People read the cells' titles ("Threshold at a percentile"), not their ids ("mask").
        const named = (ids) => listOf(ids.map((id) => {
            const cell = this.session.cell(id);
            return cell ? `“${cellTitle(this.session, cell)}”` : id;
        }));
        if (users.length > 0) {
            const direct = this.session.notebook.cells.filter((cell) => users.includes(cell.id) && readsDirectly(this.session.graph, cell.id, cellId)).map((cell) => cell.id);
            const answer = await ask({
                title: `Remove ${named([cellId])}?`,
                message: `${named(direct)} ${direct.length === 1 ? 'reads' : 'read'} ${named([cellId])}. Removing it removes ${users.length === 1 ? 'that cell' : `the ${users.length} cells that use it`} too: ${named(users)}. Undo (Ctrl+Z) brings them back.`,
                answers: [{ value: 'remove', label: `Remove ${users.length + 1} cells` }],
            });
            if (answer !== 'remove') return;
        }
        const gone = new Set([cellId, ...users]);
        const draft = structuredClone(this.session.notebook);
        draft.cells = draft.cells.filter((cell) => !gone.has(cell.id));
        const goneNames = named([...gone]);
        if (await this.submit(draft, cellId, `removing ${goneNames}`)) {
            this.session.status(`Removed ${goneNames}. Undo (Ctrl+Z) brings ${gone.size === 1 ? 'it' : 'them'} back.`, 'ok');
        }
    }

    toggle(cellId, collapsed) {
        if (collapsed) this.collapsed.add(cellId);
        else this.collapsed.delete(cellId);
        this.store.save({ collapsed: [...this.collapsed] });
    }

    /** Sends the edited document; returns whether the server took it. */
    async submit(draft, cellId, label, after, key = null) {
        try {
            await this.session.replaceNotebook(draft, label, key);
            after?.();
            return true;
        } catch (error) {
            // The server's message names the request and the check; people need only the last part.
            const message = `That change was refused: ${String(error.message).replace(/^setNotebook: (invalid notebook: )?/, '')}`;
            const card = cellId ? this.querySelector(`db-cell[data-cell="${CSS.escape(cellId)}"]`) : null;
            if (card) card.showError(message);
            else this.session.status(message, 'error');
            return false;
        }
    }
}

/** "a, b and c" */
function listOf(ids) {
    return ids.length <= 1 ? ids.join('') : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
}

customElements.define('db-notebook', NotebookView);
