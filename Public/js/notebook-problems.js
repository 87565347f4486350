/**
 * `<db-problems>`: when several cells cannot render (Makeup on a photo without semantic mattes: eight cells,
 * one cause each), the top of the notebook says so once: each distinct reason with the cells it stops, each
 * cell a button that scrolls to it, and a sample photo that has the missing plane, to open instead.
 */
import { h } from './dom.js';
import { scrollToElement } from './scroll-to.js';

/** Fewer failing cells than this are left to the cells' own error lines. */
const AT_LEAST = 2;

export class NotebookProblems extends HTMLElement {
    /** @param {import('./notebook-session.js').NotebookSession} session */
    attach(session) {
        this.session = session;
        /** cell → {message, seq} */
        this.failing = new Map();
        this.hidden = true;
        this.setAttribute('role', 'region');
        this.setAttribute('aria-label', 'Cells that cannot render');
        session.addEventListener('cellError', (event) => {
            const { cell, seq, message } = event.detail;
            if (!session.cell(cell)) return;
            this.failing.set(cell, { message, seq: seq ?? Infinity });
            this.schedule();
        });
        session.addEventListener('frame', (event) => {
            const { key, frame } = event.detail;
            const known = this.failing.get(key);
            if (known && frame.header.seq > known.seq) {
                this.failing.delete(key);
                this.schedule();
            }
        });
        session.addEventListener('notebook', () => {
            for (const cell of this.failing.keys()) if (!session.cell(cell)) this.failing.delete(cell);
            this.schedule();
        });
        return this;
    }

    /** Errors arrive one per cell in a burst: show them together. */
    schedule() {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.show(), 150);
    }

    show() {
        if (this.failing.size < AT_LEAST) {
            this.hidden = true;
            this.replaceChildren();
            return;
        }
        const byMessage = new Map();
        for (const [cell, { message }] of this.failing) {
            if (!byMessage.has(message)) byMessage.set(message, []);
            byMessage.get(message).push(cell);
        }
        const items = [...byMessage].map(([message, cells]) => h('li', {},
            h('span', { text: `${capitalise(message)}: ` }),
            ...cells.map((cell) => h('button', { type: 'button', class: 'problem-cell', onclick: () => this.reveal(cell) }, cell))));
        this.replaceChildren(
            h('p', { class: 'problems-title', text: `${this.failing.size} cells cannot render on this photo.` }),
            h('ul', { class: 'problems-list' }, ...items),
            this.suggestion([...byMessage.keys()]));
        this.hidden = false;
    }

    /** A sample that has every plane the messages say is missing, to open with one click. */
    suggestion(messages) {
        const missing = messages.map((message) => /no (photo\.\w+) plane/.exec(message)?.[1]).filter(Boolean);
        if (missing.length === 0 || !this.session.canEdit) return null;
        const sample = this.session.samples.find((candidate) => missing.every((plane) => (candidate.planes ?? []).includes(plane)));
        if (!sample) return null;
        return h('p', { class: 'problems-fix' }, 'The sample ',
            h('button', { type: 'button', class: 'problem-sample', onclick: () => this.session.choosePhoto({ sample: sample.id }, null).catch((error) => this.session.status(error.message, 'error')) },
                `Open ${sample.title ?? sample.id}`),
            ' has them.');
    }

    reveal(cellId) {
        const card = document.querySelector(`db-cell[data-cell="${CSS.escape(cellId)}"]`);
        if (!card) return;
        scrollToElement(card);
        card.querySelector('.cell-header button')?.focus({ preventScroll: true });
    }
}

function capitalise(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}

customElements.define('db-problems', NotebookProblems);
