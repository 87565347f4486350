/**
 * `<db-zoom>`: a modal dialog with a 1:1 crop of a cell at the photo's full resolution, around the point the
 * user clicked. The crop is a server frame (`crop` request); the page only places the JPEG.
 */
import { h } from '../dom.js';

export class ZoomDialog extends HTMLElement {
    connectedCallback() {
        if (this.dialog) return;
        this.heading = h('h2', { class: 'zoom-title', id: 'zoom-title', text: 'Zoom' });
        this.status = h('p', { class: 'zoom-status', role: 'status' });
        this.stage = h('div', { class: 'zoom-stage' });
        this.dialog = h('dialog', { class: 'zoom-dialog', 'aria-labelledby': 'zoom-title' },
            h('div', { class: 'zoom-header' }, this.heading,
                h('button', { type: 'button', class: 'zoom-close', onclick: () => this.dialog.close() }, 'Close')),
            this.status, this.stage);
        this.dialog.addEventListener('close', () => this.clear());
        this.append(this.dialog);
    }

    /**
     * Opens the dialog and asks for the crop around a normalised point.
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {string} reference the cell or plane to crop
     * @param {{x: number, y: number}} point 0...1 in the upright image
     */
    async zoom(session, reference, point) {
        const fullWidth = Number(session.photo?.width);
        const fullHeight = Number(session.photo?.height);
        this.clear();
        this.heading.textContent = `1:1 crop of ${reference}`;
        this.dialog.showModal();
        if (!(fullWidth > 0 && fullHeight > 0)) {
            this.status.textContent = 'The photo size is unknown, so no crop can be asked for.';
            return;
        }
        // A 1:1 crop as large as the screen shows, within the server's largest crop side (`hello`'s limits).
        const side = Math.min(session.limits.maxCropSide, Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1) / 2));
        const w = Math.min(side, fullWidth);
        const hgt = Math.min(side, fullHeight);
        const x = clamp(Math.round(point.x * fullWidth - w / 2), 0, fullWidth - w);
        const y = clamp(Math.round(point.y * fullHeight - hgt / 2), 0, fullHeight - hgt);
        this.status.textContent = `Rendering ${w}×${hgt} at (${x}, ${y})…`;
        try {
            const frame = await session.requestCrop(reference, { x, y, w, h: hgt });
            if (!this.dialog.open) return;
            this.url = URL.createObjectURL(frame.jpeg);
            const image = h('img', { src: this.url, alt: `Full-resolution crop of ${reference} at ${x}, ${y}`, width: frame.header.width ?? w, height: frame.header.height ?? hgt });
            this.stage.replaceChildren(image);
            this.status.textContent = `${frame.header.width ?? w}×${frame.header.height ?? hgt} pixels at (${x}, ${y}), rendered in ${Number(frame.header.renderMs ?? 0).toFixed(1)} ms`;
        } catch (error) {
            this.status.textContent = `The crop failed: ${error.message}`;
        }
    }

    clear() {
        this.stage?.replaceChildren();
        if (this.url) URL.revokeObjectURL(this.url);
        this.url = null;
    }
}

function clamp(value, low, high) {
    return Math.min(high, Math.max(low, value));
}

customElements.define('db-zoom', ZoomDialog);
