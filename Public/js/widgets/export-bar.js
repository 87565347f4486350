/**
 * `<db-export>`: export buttons for a cell (full-resolution JPEG with depth, mask PNG, GIF and MP4 for
 * effects that animate, with their frame count and width) with a progress bar fed by the server's `progress`
 * events (one per rendered frame of a loop, so it moves with the work) and a download link when done.
 */
import { cellTitle } from '../cell-names.js';
import { h, formatBytes, replaceChildren, uniqueId } from '../dom.js';

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
        // A loop's size: frames and width, within the server's limits (from `hello`).
        const { limits } = session;
        const loops = formats.some((format) => format === 'gif' || format === 'mp4');
        const number = (name, label, range, value, unit) => {
            const id = uniqueId(name);
            const input = h('input', { type: 'number', id, class: `export-${name}`, min: range.min, max: range.max, step: 1, value });
            return [input, h('span', { class: 'field' }, h('label', { for: id, text: label }), input, unit ? h('span', { class: 'param-unit', text: unit }) : null)];
        };
        let options = null;
        if (loops) {
            const [frames, framesField] = number('frames', 'Frames', limits.exportFrames, limits.defaultExportFrames, '');
            const [width, widthField] = number('width', 'Width', limits.exportWidth, limits.defaultExportWidth, 'px');
            this.frames = frames;
            this.width = width;
            options = h('span', { class: 'export-options' }, framesField, widthField);
        }
        replaceChildren(this, ...this.buttons, options, this.progress, this.result);
        // An export of this cell that the server runs again after a reconnect (`hello` names it).
        const onResumed = (event) => {
            if (!this.isConnected || this.session !== session) {
                session.removeEventListener('exportresumed', onResumed);
            } else if (event.detail.cell === this.cellId) {
                this.follow(event.detail);
            }
        };
        session.addEventListener('exportresumed', onResumed);
        return this;
    }

    /** The loop options as the request sends them, clamped to the server's limits. */
    loopOptions(format) {
        if ((format !== 'gif' && format !== 'mp4') || !this.frames) return {};
        const clamp = (input) => Math.round(Math.min(Number(input.max), Math.max(Number(input.min), Number(input.value) || Number(input.min))));
        this.frames.value = clamp(this.frames);
        this.width.value = clamp(this.width);
        return { frames: Number(this.frames.value), width: Number(this.width.value) };
    }

    async run(format) {
        const options = this.loopOptions(format);
        const what = options.frames ? `${format.toUpperCase()}, ${options.frames} frames ${options.width} px wide` : format.toUpperCase();
        await this.show(what, (onProgress, onWaiting) => this.session.exportCell(this.cellId, format, onProgress, options, onWaiting));
    }

    /** An export this cell's page asked for before a reload or a lost connection, run again by the server. */
    follow({ format, reply, listen }) {
        this.show(`${String(format).toUpperCase()} (resumed after the reconnect)`, (onProgress, onWaiting) => {
            listen(onProgress, onWaiting);
            return reply;
        });
    }

    /** Shows an export's progress, why it waits, and its download link: `start(onProgress, onWaiting)` gives its reply. */
    async show(what, start) {
        for (const button of this.buttons) button.disabled = true;
        this.progress.hidden = false;
        this.progress.removeAttribute('value');
        this.result.replaceChildren(`Exporting ${what}…`);
        try {
            const result = await start((fraction) => {
                if (!Number.isFinite(fraction)) return;
                this.progress.value = Math.min(1, Math.max(0, fraction));
                this.result.replaceChildren(`Exporting ${what}… ${Math.round(this.progress.value * 100)} %`);
            }, (reason) => this.result.replaceChildren(`Export of ${what} queued: ${reason}.`));
            this.progress.value = 1;
            const name = downloadName(this.session, this.cellId, result.url);
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

/**
 * The file name a download gets: the notebook, the cell and the photo, as a person would say them ("Depth
 * threshold - Blend with mask - pug.jpg"), not the server's name for the file (its hash).
 */
export function downloadName(session, cellId, url) {
    const extension = String(url).split('.').pop();
    const cell = session.cell(cellId);
    const photo = (session.photoName() ?? '').replace(/\.[a-z0-9]{2,5}$/i, '');
    const parts = [session.notebook?.title || session.notebook?.name, cell ? cellTitle(session, cell) : cellId, photo]
        .map((part) => String(part ?? '').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim())
        .filter(Boolean);
    return `${parts.join(' - ').slice(0, 120) || 'depthbook-export'}.${extension}`;
}

customElements.define('db-export', ExportBar);
