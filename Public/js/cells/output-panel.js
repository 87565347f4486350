/**
 * The output area shared by view and step cells: the live preview (click to zoom a 1:1 crop, or to pick a
 * point when a point parameter asks for one), an optional before/after split, the render readout, the
 * histogram and the export buttons.
 */
import { h } from '../dom.js';
import { PreviewImage } from '../widgets/preview-image.js';
import { SplitView } from '../widgets/split-view.js';
import { RenderReadout } from '../widgets/render-readout.js';
import { HistogramChart } from '../widgets/histogram-chart.js';
import { ExportBar } from '../widgets/export-bar.js';

export class OutputPanel extends HTMLElement {
    /**
     * @param {object} options
     * @param {import('../notebook-session.js').NotebookSession} options.session
     * @param {string} options.cellId
     * @param {string} options.label what the preview shows, for its alternative text
     * @param {string|null} options.before reference for the before/after split, if any
     * @param {'always'|'marker'|'never'} options.histogram when to show a histogram ('marker': only if the server gives one)
     * @param {string[]} options.exports export formats
     * @param {(point: {x: number, y: number}) => boolean} [options.onPick] takes the click when picking; returns whether it did
     */
    attach({ session, cellId, label, before, histogram, exports, onPick }) {
        this.session = session;
        this.preview = new PreviewImage().attach(session, cellId, label);
        // Listening on the panel catches clicks on the split view's "before" layer too.
        this.addEventListener('imagepoint', (event) => {
            if (onPick?.(event.detail)) return;
            document.querySelector('db-zoom')?.zoom(session, cellId, event.detail);
        });
        this.stage = h('div', { class: 'output-stage' }, this.preview);
        const tools = [];
        if (before) {
            this.splitButton = h('button', {
                type: 'button', class: 'split-toggle', 'aria-pressed': 'false', onclick: () => this.toggleSplit(before),
            }, 'Before / after');
            tools.push(this.splitButton);
        }
        tools.push(h('span', { class: 'zoom-hint', text: onPick ? 'Click the image for a 1:1 crop; after “Pick on image”, a click sets the point.' : 'Click the image for a 1:1 crop.' }));
        const parts = [this.stage, h('div', { class: 'output-tools' }, ...tools), new RenderReadout().attach(session, cellId)];
        if (histogram !== 'never') {
            const chart = new HistogramChart().attach(session, cellId, `Histogram of ${label}`);
            if (histogram === 'marker') {
                chart.hidden = true;
                chart.addEventListener('histogramshown', (event) => { chart.hidden = !event.detail.hasMarker; });
            }
            parts.push(chart);
        }
        if (exports.length > 0 && session.canEdit) parts.push(new ExportBar().attach(session, cellId, exports));
        this.replaceChildren(...parts);
        return this;
    }

    toggleSplit(before) {
        const on = this.splitButton.getAttribute('aria-pressed') !== 'true';
        this.splitButton.setAttribute('aria-pressed', String(on));
        if (on) {
            this.split = new SplitView().attach(this.session, before, this.preview);
            this.stage.replaceChildren(this.split);
        } else {
            this.stage.replaceChildren(this.preview);
            this.split = null;
        }
    }

    set picking(active) {
        this.classList.toggle('picking', active);
    }
}

customElements.define('db-output', OutputPanel);
