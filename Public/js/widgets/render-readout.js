/**
 * `<db-readout>`: a one-line readout for a cell's latest frame: the server's render time, the latency from
 * the request that frame answers to its arrival, and the render cache's hits and misses. The numbers are
 * mirrored in `data-render-ms`, `data-latency-ms`, `data-cache-hits`, `data-cache-misses` and `data-seq`.
 */
export class RenderReadout extends HTMLElement {
    attach(session, reference) {
        this.reference = reference;
        this.textContent = 'No frame yet';
        this.listener = (event) => {
            const { key, frame, latencyMs } = event.detail;
            if (key === this.reference) this.show(frame.header, latencyMs);
        };
        this.session = session;
        session.addEventListener('frame', this.listener);
        return this;
    }

    disconnectedCallback() {
        this.session?.removeEventListener('frame', this.listener);
    }

    connectedCallback() {
        if (this.session && this.listener) this.session.addEventListener('frame', this.listener);
    }

    show(header, latencyMs) {
        const parts = [];
        if (Number.isFinite(header.renderMs)) parts.push(`render ${header.renderMs.toFixed(1)} ms`);
        if (latencyMs !== null && latencyMs !== undefined) parts.push(`latency ${latencyMs.toFixed(0)} ms`);
        if (Number.isFinite(header.cacheHits) || Number.isFinite(header.cacheMisses)) {
            parts.push(`cache ${header.cacheHits ?? 0} hit${header.cacheHits === 1 ? '' : 's'} / ${header.cacheMisses ?? 0} miss${header.cacheMisses === 1 ? '' : 'es'}`);
        }
        if (header.width && header.height) parts.push(`${header.width}×${header.height}${header.coarse ? ' (coarse)' : ''}`);
        this.textContent = parts.join(' · ');
        this.dataset.renderMs = String(header.renderMs ?? '');
        this.dataset.latencyMs = latencyMs === null || latencyMs === undefined ? '' : latencyMs.toFixed(1);
        this.dataset.cacheHits = String(header.cacheHits ?? '');
        this.dataset.cacheMisses = String(header.cacheMisses ?? '');
        this.dataset.seq = String(header.seq);
    }
}

customElements.define('db-readout', RenderReadout);
