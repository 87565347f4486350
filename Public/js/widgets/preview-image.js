/**
 * `<db-preview>`: the latest JPEG frame for one reference (a cell id or a photo plane).
 *
 * A new frame is decoded off-screen (`HTMLImageElement.decode()`) and only then swapped in, so the previous
 * frame stays until the new one is ready: no blank, no flicker. Frames older than the one shown are dropped,
 * and so is a coarse frame once the full one for the same request is up. Object URLs are revoked as soon as
 * their image is replaced. A preview scrolled out of view swaps its frame in without waiting for a decode: the
 * browser decodes it only if it is painted, so a drag upstream of many cells decodes only the pictures on
 * screen (in headless Chromium the page, not the server, was what held a drag to 18 updates a second).
 * Clicks report the point in normalised upright image coordinates (0...1) as an
 * `imagepoint` event; the owning cell decides whether that zooms or picks a point.
 *
 * For tests and the readout the element mirrors what it shows in data attributes: `data-seq`, `data-coarse`,
 * `data-bytes`, `data-frame-width`, `data-frame-height`, `data-state` (`empty`, `ready`).
 */
import { h } from '../dom.js';

/** Which previews are on screen (or within a screen of it), shared by all of them. */
const visibility = new IntersectionObserver((entries) => {
    for (const entry of entries) entry.target.onScreen = entry.isIntersecting;
}, { rootMargin: '100% 0px' });

/**
 * A cell far from view skips layout (`content-visibility: auto`) and stands in at a placeholder height until it is
 * laid out once, which it then remembers (`contain-intrinsic-size: auto`). Laid out when its first picture has
 * loaded, it keeps its real height, so scrolling to a cell below does not land short while the cells above it
 * grow to their pictures (Big Head's Scale slider ended 600 px below the window).
 */
function layOutOnce(cell) {
    if (!cell || cell.style.contentVisibility) return;
    cell.style.contentVisibility = 'visible';
    requestAnimationFrame(() => requestAnimationFrame(() => { cell.style.contentVisibility = ''; }));
}

export class PreviewImage extends HTMLElement {
    constructor() {
        super();
        this.shownSeq = -Infinity;
        this.shownCoarse = true;
        this.objectUrl = null;
        this.image = null;
        this.unregister = null;
        this.session = null;
        this.reference = null;
        /** Until the observer first reports, decode as if visible. */
        this.onScreen = true;
    }

    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {string} reference what to show
     * @param {string} label alternative text describing the picture
     */
    attach(session, reference, label) {
        this.session = session;
        this.reference = reference;
        this.label = label;
        this.dataset.reference = reference;
        this.dataset.state = 'empty';
        this.placeholder = h('div', { class: 'preview-placeholder', text: 'Rendering…' });
        this.replaceChildren(this.placeholder);
        this.unregister = session.registerPreview(reference, this);
        this.addEventListener('click', (event) => this.reportPoint(event));
        // Keyboard users get the same as a click in the middle.
        this.tabIndex = 0;
        this.setAttribute('role', 'button');
        this.setAttribute('aria-label', `${label}. Press Enter for a 1:1 crop of the centre.`);
        this.addEventListener('keydown', (event) => {
            if ((event.key === 'Enter' || event.key === ' ') && this.image) {
                event.preventDefault();
                this.dispatchEvent(new CustomEvent('imagepoint', { bubbles: true, detail: { x: 0.5, y: 0.5, reference: this.reference } }));
            }
        });
        this.onCellError = (event) => {
            if (event.detail.cell === this.reference) this.showProblem(event.detail.message);
        };
        session.addEventListener('cellError', this.onCellError);
        return this;
    }

    connectedCallback() {
        visibility.observe(this);
        if (this.session && !this.unregister) {
            this.unregister = this.session.registerPreview(this.reference, this);
            this.session.addEventListener('cellError', this.onCellError);
        }
    }

    disconnectedCallback() {
        visibility.unobserve(this);
        this.unregister?.();
        this.unregister = null;
        this.session?.removeEventListener('cellError', this.onCellError);
        if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
        this.objectUrl = null;
    }

    /** Device pixels this element would like its frames to be. */
    wantedWidth() {
        let cssWidth = this.clientWidth || this.parentElement?.clientWidth || 480;
        // A picture fitted to its box's height as well (the presenter's stage) needs no more than the height allows.
        const aspect = Number(this.dataset.frameWidth) / Number(this.dataset.frameHeight);
        if (this.classList.contains('fit-height') && aspect > 0 && this.clientHeight > 0) cssWidth = Math.min(cssWidth, this.clientHeight * aspect);
        return Math.round(cssWidth * (window.devicePixelRatio || 1));
    }

    isStale(seq, coarse) {
        return seq < this.shownSeq || (seq === this.shownSeq && (coarse || !this.shownCoarse));
    }

    async showFrame(frame) {
        const { header } = frame;
        const coarse = Boolean(header.coarse);
        if (this.isStale(header.seq, coarse)) return;
        const url = URL.createObjectURL(frame.jpeg);
        const image = new Image();
        image.alt = this.label;
        image.draggable = false;
        // The frame's size reserves the picture's box before it has loaded (an off-screen preview does not wait
        // for its decode), so the page does not jump as pictures above the one in view come in.
        if (header.width > 0 && header.height > 0) Object.assign(image, { width: header.width, height: header.height });
        image.src = url;
        try {
            if (this.onScreen) await image.decode();
        } catch {
            URL.revokeObjectURL(url);
            this.dispatchEvent(new CustomEvent('previewerror', { bubbles: true, detail: { message: 'A frame from the server could not be decoded as JPEG.' } }));
            return;
        }
        // Another, newer frame may have been decoded while this one was.
        if (this.isStale(header.seq, coarse)) {
            URL.revokeObjectURL(url);
            return;
        }
        if (this.image) this.image.replaceWith(image);
        else {
            this.placeholder.replaceWith(image);
            if (!this.onScreen) image.addEventListener('load', () => layOutOnce(this.closest('db-cell')), { once: true });
        }
        if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
        this.image = image;
        this.objectUrl = url;
        this.shownSeq = header.seq;
        this.shownCoarse = coarse;
        delete this.dataset.problem;
        Object.assign(this.dataset, {
            state: 'ready',
            seq: String(header.seq),
            coarse: String(coarse),
            bytes: String(frame.bytes),
            frameWidth: String(header.width ?? image.naturalWidth),
            frameHeight: String(header.height ?? image.naturalHeight),
        });
        this.dispatchEvent(new CustomEvent('previewshown', { bubbles: true, detail: { header } }));
    }

    /** A render for this preview failed: say so where the picture is (an older frame, if any, stays). */
    showProblem(message) {
        this.dataset.problem = message;
        if (!this.image) {
            // The cell's error line already says it in full when it is this cell's own output; don't repeat it.
            const card = this.closest('db-cell');
            this.placeholder.textContent = card?.references?.has(this.reference) ? 'Not rendered: see the message above.' : message;
            this.placeholder.classList.add('failed');
        }
    }

    reportPoint(event) {
        if (!this.image) return;
        const box = this.image.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) return;
        const x = (event.clientX - box.left) / box.width;
        const y = (event.clientY - box.top) / box.height;
        if (x < 0 || x > 1 || y < 0 || y > 1) return;
        this.dispatchEvent(new CustomEvent('imagepoint', { bubbles: true, detail: { x, y, reference: this.reference } }));
    }
}

customElements.define('db-preview', PreviewImage);
