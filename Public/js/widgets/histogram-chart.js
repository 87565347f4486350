/**
 * `<db-histogram>`: draws a histogram the server computed (`histogram` request: bin counts, the value range,
 * an optional marker such as the threshold a percentile maps to, and the count of holes). The page never
 * sees the pixels the counts came from.
 *
 * Mirrors the marker in `data-marker` (its value) and `data-marker-fraction` (its position 0...1 along the
 * axis), and describes the chart in text for screen readers.
 */
import { h } from '../dom.js';

const HEIGHT = 96;

export class HistogramChart extends HTMLElement {
    attach(session, reference, label) {
        this.label = label;
        this.dataset.reference = reference;
        this.canvas = h('canvas', { role: 'img', 'aria-label': `${label}: waiting for data`, height: HEIGHT });
        this.caption = h('p', { class: 'histogram-caption', text: 'Histogram: waiting for data…' });
        this.replaceChildren(this.canvas, this.caption);
        this.result = null;
        this.session = session;
        this.reference = reference;
        this.unregister = session.registerHistogram(reference, this);
        this.resizeObserver = new ResizeObserver(() => this.draw());
        this.resizeObserver.observe(this);
        // Whether the chart is on screen (undefined until first observed: treated as visible).
        this.visibility = new IntersectionObserver((entries) => {
            this.onScreen = entries[entries.length - 1].isIntersecting;
            if (this.onScreen) session.histogramShown(reference);
        }, { rootMargin: '200px' });
        this.visibility.observe(this);
        return this;
    }

    connectedCallback() {
        if (this.session && !this.unregister) this.unregister = this.session.registerHistogram(this.reference, this);
    }

    disconnectedCallback() {
        this.unregister?.();
        this.unregister = null;
    }

    show(result) {
        if (!result || !Array.isArray(result.bins)) {
            this.showError('the server sent no bins');
            return;
        }
        this.result = result;
        this.classList.remove('has-error');
        const { min, max, marker, holes } = result;
        const range = `${formatValue(min)} to ${formatValue(max)}`;
        const fraction = markerFraction(result);
        const markerText = fraction === null ? '' : `; marker at ${formatValue(marker)} (${Math.round(fraction * 100)}% along)`;
        const holesText = holes ? `; ${holes} holes` : '';
        this.caption.textContent = `${result.bins.length} bins from ${range}${markerText}${holesText}`;
        this.canvas.setAttribute('aria-label', `${this.label}: ${this.caption.textContent}`);
        if (fraction === null) {
            delete this.dataset.marker;
            delete this.dataset.markerFraction;
        } else {
            this.dataset.marker = String(marker);
            this.dataset.markerFraction = fraction.toFixed(6);
        }
        this.draw();
        this.dispatchEvent(new CustomEvent('histogramshown', { detail: { hasMarker: fraction !== null } }));
    }

    showError(message) {
        this.classList.add('has-error');
        this.caption.textContent = `Histogram unavailable: ${message}`;
        this.canvas.setAttribute('aria-label', `${this.label}: unavailable`);
    }

    draw() {
        if (!this.result || !this.canvas) return;
        const ratio = window.devicePixelRatio || 1;
        const cssWidth = Math.max(120, this.clientWidth);
        this.canvas.width = Math.round(cssWidth * ratio);
        this.canvas.height = Math.round(HEIGHT * ratio);
        this.canvas.style.height = `${HEIGHT}px`;
        const context = this.canvas.getContext('2d');
        const style = getComputedStyle(this);
        const { width, height } = this.canvas;
        context.clearRect(0, 0, width, height);
        const bins = this.result.bins;
        // Square-root scale: a tall peak (the background) must not flatten everything else.
        const peak = Math.sqrt(Math.max(1, ...bins));
        const barWidth = width / bins.length;
        context.fillStyle = style.getPropertyValue('--histogram-bar').trim() || '#6b8cc7';
        bins.forEach((count, index) => {
            const barHeight = (Math.sqrt(Math.max(0, count)) / peak) * (height - 4 * ratio);
            context.fillRect(index * barWidth, height - barHeight, Math.max(1, barWidth - ratio * 0.5), barHeight);
        });
        const fraction = markerFraction(this.result);
        if (fraction !== null) {
            const x = Math.round(fraction * (width - 2 * ratio)) + ratio;
            context.fillStyle = style.getPropertyValue('--histogram-marker').trim() || '#d0342c';
            context.fillRect(x - ratio, 0, 2 * ratio, height);
        }
    }
}

/** Where the marker sits along the axis, 0...1, or null when there is none. */
function markerFraction({ min, max, marker }) {
    if (marker === null || marker === undefined || !Number.isFinite(marker)) return null;
    if (!Number.isFinite(min) || !Number.isFinite(max) || max <= min) return 0.5;
    return Math.min(1, Math.max(0, (marker - min) / (max - min)));
}

function formatValue(value) {
    if (!Number.isFinite(value)) return String(value);
    return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

customElements.define('db-histogram', HistogramChart);
