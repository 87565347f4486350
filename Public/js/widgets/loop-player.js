/**
 * `<db-loop>`: plays an animated step's loop (Wiggle) in its cell. The server renders the loop as a small
 * GIF (the same export as "Export GIF", at the cell's preview size and a dozen frames), which the browser
 * plays by itself; "Stop" goes back to the still output. The progress follows the frames as they render.
 */
import { h } from '../dom.js';

export class LoopPlayer extends HTMLElement {
    /** @param {import('../notebook-session.js').NotebookSession} session @param {string} cellId */
    attach(session, cellId) {
        this.session = session;
        this.cellId = cellId;
        this.button = h('button', { type: 'button', class: 'loop-play', onclick: () => (this.image ? this.stop() : this.play()) }, '▶ Play the loop');
        this.state = h('span', { class: 'loop-state', role: 'status' });
        this.stage = h('div', { class: 'loop-stage', hidden: true });
        this.replaceChildren(h('div', { class: 'loop-controls' }, this.button, this.state), this.stage);
        // An edit makes the loop out of date: back to the live still.
        this.onNotebook = () => this.stop();
        session.addEventListener('notebook', this.onNotebook);
        return this;
    }

    disconnectedCallback() {
        this.session?.removeEventListener('notebook', this.onNotebook);
    }

    async play() {
        this.button.disabled = true;
        this.state.textContent = 'Rendering the loop…';
        const { defaultExportWidth, defaultExportFrames, exportWidth } = this.session.limits;
        // As wide as the player shows it, never wider than an export's default nor narrower than the server takes.
        const width = Math.max(exportWidth.min, Math.min(defaultExportWidth, Math.round(this.clientWidth || defaultExportWidth)));
        try {
            const result = await this.session.exportCell(this.cellId, 'gif', (fraction) => {
                if (Number.isFinite(fraction)) this.state.textContent = `Rendering the loop… ${Math.round(fraction * 100)} %`;
            }, { frames: defaultExportFrames, width }, (reason) => { this.state.textContent = `The loop is queued: ${reason}.`; });
            this.image = h('img', { class: 'loop-image', src: result.url, alt: `The loop of cell ${this.cellId}, playing` });
            this.stage.replaceChildren(this.image);
            this.stage.hidden = false;
            this.state.textContent = 'Playing.';
            this.button.textContent = '■ Stop';
            this.dispatchEvent(new CustomEvent('loopplaying', { bubbles: true, detail: { playing: true } }));
        } catch (error) {
            this.state.textContent = `The loop could not be made: ${error.message}`;
        } finally {
            this.button.disabled = false;
        }
    }

    stop() {
        if (!this.image) return;
        this.image = null;
        this.stage.replaceChildren();
        this.stage.hidden = true;
        this.state.textContent = '';
        this.button.textContent = '▶ Play the loop';
        this.dispatchEvent(new CustomEvent('loopplaying', { bubbles: true, detail: { playing: false } }));
    }
}

customElements.define('db-loop', LoopPlayer);
