/**
 * `<db-export>`: export buttons for a cell (full-resolution JPEG with depth, mask PNG, GIF and MP4 for
 * effects that animate) with a progress bar fed by the server's `progress` events, and a download link when done.
 */
import { h, formatBytes } from '../dom.js';

const LABELS = { jpeg: 'Export JPEG', png: 'Export PNG', gif: 'Export GIF', mp4: 'Export MP4' };

export class ExportBar extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {string} cellId
     * @param {string[]} formats the formats this cell's output can be saved as
     */
    attach(session, cellId, formats) {
        this.session = session;
        this.cellId = cellId;
        this.progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': `Export progress for ${cellId}` });
        this.result = h('span', { class: 'export-result', role: 'status' });
        this.buttons = formats.map((format) => h('button', {
            type: 'button', class: 'export-button', dataset: { format },
            onclick: () => this.run(format),
        }, LABELS[format] ?? `Export ${format}`));
        this.replaceChildren(...this.buttons, this.progress, this.result);
        return this;
    }

    async run(format) {
        for (const button of this.buttons) button.disabled = true;
        this.progress.hidden = false;
        this.progress.removeAttribute('value');
        this.result.replaceChildren(`Exporting ${format.toUpperCase()}…`);
        try {
            const result = await this.session.exportCell(this.cellId, format, (fraction) => {
                if (Number.isFinite(fraction)) this.progress.value = Math.min(1, Math.max(0, fraction));
            });
            this.progress.value = 1;
            const name = String(result.url).split('/').pop();
            const link = h('a', { href: result.url, download: name, text: `Download ${name}` });
            this.result.replaceChildren(link, ` (${formatBytes(Number(result.bytes))})`);
            link.click();
        } catch (error) {
            this.result.replaceChildren(h('span', { class: 'error-text', text: `Export failed: ${error.message}` }));
        } finally {
            for (const button of this.buttons) button.disabled = false;
            this.progress.hidden = true;
        }
    }
}

customElements.define('db-export', ExportBar);
