/**
 * `<db-pinned>`: one cell's output kept in view while the rest of the notebook scrolls: a side panel on wide
 * screens, a strip docked at the bottom on narrow ones. It shows the same frames as the cell itself (one more
 * preview registered for the same reference), so it follows live while a slider in another cell moves.
 *
 * In presenter mode it is the stage: the pinned cell, else the notebook's result, filling the screen beside
 * the column of controls, with the choice of what is on stage, the watch link for other devices, and a
 * caption naming the value being moved. The pinned cell is remembered per tab.
 */
import { h, uniqueId } from './dom.js';
import { outputCell } from './notebook-graph.js';
import { cellTitle } from './cell-names.js';
import { PreviewImage } from './widgets/preview-image.js';
import { showFollowDialog } from './widgets/follow-dialog.js';

const KEY = 'depthbook.pinned';
const CAPTION_MS = 2500;

export class PinnedOutput extends HTMLElement {
    /**
     * @param {import('./notebook-session.js').NotebookSession} session
     * @param {import('./presenter.js').Presenter} presenter
     */
    attach(session, presenter) {
        this.session = session;
        this.presenter = presenter;
        this.pinnedId = sessionStorage.getItem(KEY);
        this.reference = null;
        this.hidden = true;
        this.setAttribute('role', 'complementary');
        session.addEventListener('notebook', () => this.refresh());
        session.addEventListener('catalogs', () => this.refresh());
        presenter.addEventListener('change', () => this.refresh());
        session.addEventListener('paramset', (event) => this.caption(event.detail));
        // The stage picture's shape sizes the presenter's column: a portrait leaves a wide one.
        this.addEventListener('previewshown', (event) => {
            const { width, height } = event.detail.header;
            if (width > 0 && height > 0) document.body.style.setProperty('--stage-aspect', (width / height).toFixed(4));
        });
        return this;
    }

    get presenting() {
        return this.presenter?.active ?? false;
    }

    /** Pins `cellId` (replacing what was pinned), or unpins it when it is already pinned. */
    toggle(cellId) {
        if (this.pinnedId === cellId) this.unpin();
        else this.pin(cellId);
    }

    pin(cellId) {
        this.pinnedId = cellId;
        sessionStorage.setItem(KEY, cellId);
        this.refresh();
    }

    unpin() {
        this.pinnedId = null;
        sessionStorage.removeItem(KEY);
        this.refresh();
    }

    /** Shows what should be shown now: the pinned cell, or in presenter mode the result; else nothing. */
    refresh() {
        const { notebook } = this.session;
        if (!notebook) return;
        // A notebook without the pinned cell (another notebook opened, the cell removed) unpins it.
        if (this.pinnedId && !this.session.cell(this.pinnedId)) {
            this.pinnedId = null;
            sessionStorage.removeItem(KEY);
        }
        const shown = this.pinnedId ?? (this.presenting ? outputCell(notebook, this.session.graph) : null);
        document.body.classList.toggle('has-pinned', Boolean(this.pinnedId) && !this.presenting);
        if (!shown) {
            this.preview?.remove();
            this.preview = null;
            this.reference = null;
            this.replaceChildren();
            this.hidden = true;
        } else {
            const header = this.presenting ? this.stageHeader(shown) : this.panelHeader(shown);
            if (shown !== this.reference) {
                this.preview?.remove();
                this.reference = shown;
                this.preview = new PreviewImage().attach(this.session, shown, `Output of ${shown}`);
                this.preview.classList.add('fit-height');
                this.captionLine = h('p', { class: 'stage-caption', 'aria-live': 'polite' });
                this.replaceChildren(header, this.preview, this.captionLine);
            } else {
                // Only the header changes: moving the preview would drop and re-register it.
                this.firstElementChild.replaceWith(header);
            }
            this.hidden = false;
        }
        this.setAttribute('aria-label', this.presenting ? 'Stage' : 'Pinned output');
        // On entering presenter mode the header shows for a moment, so people know where the stage's controls are.
        if (this.presenting && !this.wasPresenting) {
            this.classList.add('show-header');
            clearTimeout(this.headerTimer);
            this.headerTimer = setTimeout(() => this.classList.remove('show-header'), 4000);
        }
        this.wasPresenting = this.presenting;
        this.dispatchEvent(new CustomEvent('pinned', { bubbles: true, detail: { cell: this.pinnedId, shown } }));
    }

    title(cellId) {
        const cell = this.session.cell(cellId);
        return cell ? cellTitle(this.session, cell) : cellId;
    }

    panelHeader(cellId) {
        return h('header', { class: 'pinned-header' },
            h('h2', { class: 'pinned-title', text: `Pinned: ${this.title(cellId)}` }),
            h('span', { class: 'cell-id', text: cellId }),
            h('button', { type: 'button', class: 'unpin', 'aria-label': `Unpin ${cellId}`, onclick: () => this.unpin() }, '✕'));
    }

    /** What is on stage (pinned, or the result when nothing is), the watch link, and the way out. */
    stageHeader(cellId) {
        const id = uniqueId('stage');
        const automatic = outputCell(this.session.notebook, this.session.graph);
        const choices = (this.session.notebook.cells ?? []).filter((cell) => ['step', 'view', 'photo'].includes(cell.kind));
        const select = h('select', { id, class: 'stage-choice' },
            h('option', { value: '', text: `Result: ${automatic ? this.title(automatic) : 'none'}` }),
            ...choices.map((cell) => h('option', { value: cell.id, text: `${this.title(cell.id)} · ${cell.id}` })));
        select.value = this.pinnedId ?? '';
        select.addEventListener('change', () => (select.value ? this.pin(select.value) : this.unpin()));
        return h('header', { class: 'stage-header' },
            h('h2', { class: 'stage-title', text: this.session.notebook.title || this.session.notebook.name || 'Notebook' }),
            h('span', { class: 'field' }, h('label', { for: id, text: 'On stage' }), select),
            this.pinnedId ? h('button', { type: 'button', class: 'stage-unpin', onclick: () => this.unpin() }, 'Unpin') : null,
            this.session.sessionId ? h('button', { type: 'button', class: 'stage-follow', onclick: () => showFollowDialog(this.session) }, 'Follow on another device') : null,
            h('button', { type: 'button', class: 'stage-exit', title: 'Leave presenter mode (Esc)', onclick: () => this.presenter.toggle(false) }, 'Exit'));
    }

    /** On stage, names the value being moved, so the audience sees what changes the picture. */
    caption({ cell: cellId, name, value }) {
        if (!this.presenting || !this.captionLine || typeof value === 'object') return;
        const cell = this.session.cell(cellId);
        const parameter = this.session.catalog.get(cell?.effect)?.parameters?.find((entry) => entry.name === name);
        const shown = typeof value === 'number' ? Number(value.toFixed(3)) : value;
        this.captionLine.textContent = `${cell ? cellTitle(this.session, cell) : cellId} · ${parameter?.label ?? name}: ${shown}${parameter?.unit ? ` ${parameter.unit}` : ''}`;
        this.captionLine.classList.add('shown');
        clearTimeout(this.captionTimer);
        this.captionTimer = setTimeout(() => this.captionLine.classList.remove('shown'), CAPTION_MS);
    }
}

customElements.define('db-pinned', PinnedOutput);
