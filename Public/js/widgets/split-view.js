/**
 * `<db-split>`: before/after. The "before" frame (the step's input) lies over the "after" frame (the step's
 * output), clipped at a divider the user moves with a labelled native slider (keyboard works as usual).
 */
import { h, uniqueId } from '../dom.js';
import { PreviewImage } from './preview-image.js';

export class SplitView extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {string} before reference shown on the left of the divider
     * @param {PreviewImage} after the cell's own preview, moved into the split
     */
    attach(session, before, after) {
        this.before = new PreviewImage().attach(session, before, `Before: ${before}`);
        this.before.classList.add('split-before');
        const id = uniqueId('split');
        this.slider = h('input', { type: 'range', id, min: 0, max: 100, step: 1, value: 50, class: 'split-slider' });
        this.slider.addEventListener('input', () => this.place());
        this.replaceChildren(
            h('div', { class: 'split-stage' }, after, this.before),
            h('div', { class: 'split-control' },
                h('label', { for: id, text: `Before (${before}) / after` }), this.slider),
        );
        this.place();
        session.requestPreview(before);
        return this;
    }

    place() {
        const percent = Number(this.slider.value);
        this.before.style.clipPath = `inset(0 ${100 - percent}% 0 0)`;
        this.style.setProperty('--split', `${percent}%`);
    }
}

customElements.define('db-split', SplitView);
