/**
 * `<db-unsupported-cell>`: a cell of a kind this page does not know. It is kept in the notebook as it is
 * (docs/notebook-format.md) and shown as unsupported, never breaking the rest.
 */
import { h } from '../dom.js';

export class UnsupportedCell extends HTMLElement {
    attach(cell) {
        this.replaceChildren(h('p', { class: 'unsupported', text: `This page does not know cells of kind "${String(cell.kind)}"; it is kept unchanged.` }));
        return this;
    }
}

customElements.define('db-unsupported-cell', UnsupportedCell);
