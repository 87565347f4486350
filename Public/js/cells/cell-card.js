/**
 * `<db-cell>`: the frame every cell sits in, like a Jupyter cell: a header with its kind and id, collapse,
 * move up/down and remove; the cell's own content; and an error line that shows render or request errors
 * for this cell in place (cleared by the next good frame).
 */
import { h } from '../dom.js';

const KIND_NAMES = { note: 'Note', photo: 'Photo', view: 'View', step: 'Step', formula: 'Formula', unsupported: 'Unsupported' };

export class CellCard extends HTMLElement {
    /**
     * @param {object} options
     * @param {import('../notebook-session.js').NotebookSession} options.session
     * @param {object} options.cell the notebook cell
     * @param {number} options.index its position
     * @param {number} options.count how many cells the notebook has
     * @param {HTMLElement} options.content the kind-specific element
     * @param {string} options.title what the header calls it
     * @param {string[]} options.references frames and errors for these references belong to this cell
     * @param {{move: (id: string, delta: number) => void, remove: (id: string) => void, toggle: (id: string, collapsed: boolean) => void}} options.actions
     * @param {boolean} options.collapsed
     */
    attach({ session, cell, index, count, content, title, references, actions, collapsed }) {
        this.session = session;
        this.cellId = cell.id;
        this.references = new Set(references);
        this.errorSeq = -Infinity;
        this.dataset.cell = cell.id;
        this.dataset.kind = cell.kind;
        this.setAttribute('role', 'region');
        const headingId = `cell-heading-${cell.id}`;
        this.setAttribute('aria-labelledby', headingId);
        const bodyId = `cell-body-${cell.id}`;
        const editable = session.canEdit;
        this.toggle = h('button', {
            type: 'button', class: 'cell-toggle', 'aria-expanded': String(!collapsed), 'aria-controls': bodyId,
            'aria-label': `${collapsed ? 'Expand' : 'Collapse'} cell ${cell.id}`,
            onclick: () => {
                const nowCollapsed = !this.classList.contains('collapsed');
                this.setCollapsed(nowCollapsed);
                actions.toggle(cell.id, nowCollapsed);
            },
        }, '▾');
        // The cell's actions behind one button (one tab stop per cell): pin its output, move it, remove it.
        const hasOutput = ['step', 'view', 'photo', 'formula'].includes(cell.kind);
        const close = () => { menu.open = false; };
        const item = (props, text) => h('button', { type: 'button', role: 'menuitem', ...props,
            onclick: (event) => { close(); props.onclick(event); } }, text);
        const items = [
            hasOutput ? item({ class: 'cell-pin', onclick: () => actions.pin(cell.id) }, 'Pin output (keep it in view)') : null,
            editable ? item({ class: 'cell-up', disabled: index === 0, onclick: () => actions.move(cell.id, -1) }, 'Move up') : null,
            editable ? item({ class: 'cell-down', disabled: index === count - 1, onclick: () => actions.move(cell.id, 1) }, 'Move down') : null,
            editable ? item({ class: 'cell-remove', onclick: () => actions.remove(cell.id) }, 'Remove cell') : null,
        ].filter(Boolean);
        const menu = h('details', { class: 'cell-menu' },
            h('summary', { 'aria-label': `Actions for cell ${cell.id}`, title: 'Cell actions' }, '⋯'),
            h('div', { class: 'cell-menu-items', role: 'menu', 'aria-label': `Actions for cell ${cell.id}` }, ...items));
        menu.addEventListener('keydown', (event) => {
            if (event.key === 'Escape' && menu.open) {
                close();
                menu.querySelector('summary').focus();
            }
        });
        const tools = items.length ? [menu] : [];
        // In presenter mode the menu is hidden: putting an output on stage is one button in the header.
        this.stageButton = hasOutput ? h('button', {
            type: 'button', class: 'cell-stage', 'aria-pressed': String(document.querySelector('db-pinned')?.pinnedId === cell.id), title: 'Show this output on the stage',
            'aria-label': `Show ${cell.id} on the stage`, onclick: () => actions.pin(cell.id),
        }, 'On stage') : null;
        this.errorLine = h('div', { class: 'cell-error', role: 'alert', hidden: true });
        this.body = h('div', { class: 'cell-body', id: bodyId }, content);
        this.replaceChildren(
            h('header', { class: 'cell-header' },
                this.toggle,
                h('span', { class: `cell-kind kind-${cell.kind}`, text: KIND_NAMES[cell.kind] ?? KIND_NAMES.unsupported }),
                h('h2', { class: 'cell-title', id: headingId, text: title }),
                h('span', { class: 'cell-id', text: cell.id }),
                this.stageButton,
                h('span', { class: 'cell-tools' }, ...tools)),
            this.errorLine,
            this.body,
        );
        this.setCollapsed(collapsed);
        // Content reports its own failures (a refused upload, an undecodable frame) the same way.
        this.addEventListener('cellproblem', (event) => this.showError(event.detail.message));
        this.addEventListener('cellfixed', () => this.clearError());
        this.addEventListener('previewerror', (event) => this.showError(event.detail.message));

        this.onError = (event) => {
            const { cell: reference, seq, message } = event.detail;
            if (this.references.has(reference)) this.showError(message, seq);
        };
        this.onFrame = (event) => {
            const { key, frame } = event.detail;
            if (this.references.has(key) && frame.header.seq > this.errorSeq) this.clearError();
        };
        this.onOk = (event) => {
            if (event.detail.cell === this.cellId) this.clearError();
        };
        session.addEventListener('cellError', this.onError);
        session.addEventListener('frame', this.onFrame);
        session.addEventListener('cellOk', this.onOk);
        this.onPinned = (event) => this.stageButton?.setAttribute('aria-pressed', String(event.detail.cell === this.cellId));
        document.addEventListener('pinned', this.onPinned);
        return this;
    }

    disconnectedCallback() {
        this.session?.removeEventListener('cellError', this.onError);
        this.session?.removeEventListener('frame', this.onFrame);
        this.session?.removeEventListener('cellOk', this.onOk);
        document.removeEventListener('pinned', this.onPinned);
    }

    setCollapsed(collapsed) {
        this.classList.toggle('collapsed', collapsed);
        this.body.hidden = collapsed;
        this.toggle.setAttribute('aria-expanded', String(!collapsed));
        this.toggle.setAttribute('aria-label', `${collapsed ? 'Expand' : 'Collapse'} cell ${this.cellId}`);
    }

    /**
     * Shows an error in this cell; the previous output stays visible under it. A render error (with the
     * `seq` of the request that failed) goes when a newer frame arrives; a problem of the page's own (a
     * refused upload, no `seq`) stays until the user's next action succeeds.
     */
    showError(message, seq = Infinity) {
        this.errorSeq = Number.isFinite(seq) ? seq : Infinity;
        this.errorLine.textContent = message;
        this.errorLine.hidden = false;
        this.classList.add('has-error');
    }

    clearError() {
        this.errorSeq = -Infinity;
        if (this.errorLine.hidden) return;
        this.errorLine.hidden = true;
        this.errorLine.textContent = '';
        this.classList.remove('has-error');
    }
}

customElements.define('db-cell', CellCard);
