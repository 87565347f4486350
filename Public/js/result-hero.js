/**
 * `<db-result>`: a shared notebook opens on its result. Above the recipe, the output cell's picture (live, the
 * same frames as the cell) with the photo it was made on, and the way to keep it in view while reading the
 * recipe below: a phone no longer has to scroll past every step to see what the link is for.
 */
import { h } from './dom.js';
import { outputCell } from './notebook-graph.js';
import { cellTitle } from './cell-names.js';
import { PreviewImage } from './widgets/preview-image.js';

export class ResultHero extends HTMLElement {
    /** @param {import('./notebook-session.js').NotebookSession} session */
    attach(session) {
        const cellId = outputCell(session.notebook, session.graph);
        if (!cellId) return null;
        const cell = session.cell(cellId);
        const photo = session.photoName();
        this.setAttribute('role', 'region');
        this.setAttribute('aria-label', 'Result');
        this.replaceChildren(
            new PreviewImage().attach(session, cellId, `The result, ${cellTitle(session, cell)}`),
            h('p', { class: 'result-caption' },
                h('strong', { text: cellTitle(session, cell) }),
                photo ? ` on ${photo}. ` : '. ',
                'The recipe that made it follows below. ',
                h('button', { type: 'button', class: 'result-pin', onclick: () => document.querySelector('db-pinned')?.pin(cellId) }, 'Keep it in view')));
        return this;
    }
}

customElements.define('db-result', ResultHero);
