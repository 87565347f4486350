/**
 * `<db-pinned>`: one cell's output kept in view while the rest of the notebook scrolls: a side panel on wide
 * screens, a strip docked at the bottom on narrow ones. It shows the same frames as the cell itself (one more
 * preview registered for the same reference), so it follows live while a slider in another cell moves.
 * The pinned cell is remembered per tab.
 */
import { h } from './dom.js';
import { PreviewImage } from './widgets/preview-image.js';

const KEY = 'depthbook.pinned';

export class PinnedOutput extends HTMLElement {
    /** @param {import('./notebook-session.js').NotebookSession} session */
    attach(session) {
        this.session = session;
        this.reference = null;
        this.hidden = true;
        this.setAttribute('role', 'complementary');
        this.setAttribute('aria-label', 'Pinned output');
        // A notebook without the pinned cell (another notebook opened) unpins it.
        session.addEventListener('notebook', () => {
            const wanted = this.reference ?? sessionStorage.getItem(KEY);
            if (wanted && session.cell(wanted)) this.show(wanted);
            else if (this.reference) this.unpin();
        });
        return this;
    }

    /** Pins `cellId` (replacing what was pinned), or unpins it when it is already pinned. */
    toggle(cellId) {
        if (this.reference === cellId) this.unpin();
        else this.show(cellId);
    }

    show(cellId) {
        if (this.reference === cellId && !this.hidden) return;
        this.preview?.remove();
        this.reference = cellId;
        sessionStorage.setItem(KEY, cellId);
        const cell = this.session.cell(cellId);
        const title = cell?.effect ? (this.session.catalog.get(cell.effect)?.title ?? cell.effect) : cellId;
        this.preview = new PreviewImage().attach(this.session, cellId, `Pinned output of ${cellId}`);
        this.replaceChildren(
            h('header', { class: 'pinned-header' },
                h('h2', { class: 'pinned-title', text: `Pinned: ${title}` }),
                h('span', { class: 'cell-id', text: cellId }),
                h('button', { type: 'button', class: 'unpin', 'aria-label': `Unpin ${cellId}`, onclick: () => this.unpin() }, '✕')),
            this.preview);
        this.hidden = false;
        document.body.classList.add('has-pinned');
        this.dispatchEvent(new CustomEvent('pinned', { bubbles: true, detail: { cell: cellId } }));
    }

    unpin() {
        this.preview?.remove();
        this.preview = null;
        this.reference = null;
        sessionStorage.removeItem(KEY);
        this.replaceChildren();
        this.hidden = true;
        document.body.classList.remove('has-pinned');
        this.dispatchEvent(new CustomEvent('pinned', { bubbles: true, detail: { cell: null } }));
    }
}

customElements.define('db-pinned', PinnedOutput);
