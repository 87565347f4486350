/**
 * The histogram charts on the page, by what they show, and the requests that keep them current: one in flight
 * per reference (a change meanwhile asks once more when it ends), and none for charts nobody sees. Each
 * histogram holds the session's render slot for a while on a large photo, so a chart out of view is only
 * marked stale and asked for when it scrolls in (`shown`).
 */
export class HistogramRegistry {
    /**
     * @param {import('../studio-socket.js').StudioSocket} socket
     * @param {() => object} limits the server's bounds from `hello` (its `defaultHistogramBins` is what each chart asks for)
     */
    constructor(socket, limits) {
        this.socket = socket;
        this.limits = limits;
        /** reference → Set of chart elements */
        this.elements = new Map();
        this.inFlight = new Set();
        this.dirty = new Set();
        /** references that changed while no chart showing them was on screen */
        this.stale = new Set();
    }

    /** Adds a chart and asks for its histogram; returns the function that removes it. */
    register(reference, element) {
        if (!this.elements.has(reference)) this.elements.set(reference, new Set());
        this.elements.get(reference).add(element);
        this.refresh(reference);
        return () => {
            this.elements.get(reference)?.delete(element);
            if (this.elements.get(reference)?.size === 0) this.elements.delete(reference);
        };
    }

    references() {
        return this.elements.keys();
    }

    /** Asks for a histogram again, if a chart showing it is on screen (else marks it stale). */
    refresh(reference) {
        if (!this.elements.has(reference) || !this.socket.isOpen) return;
        if (![...this.elements.get(reference)].some((element) => element.onScreen !== false)) {
            this.stale.add(reference);
            return;
        }
        this.stale.delete(reference);
        if (this.inFlight.has(reference)) {
            this.dirty.add(reference);
            return;
        }
        this.inFlight.add(reference);
        this.socket.request('histogram', { cell: reference, bins: this.limits().defaultHistogramBins })
            .then((result) => {
                for (const element of this.elements.get(reference) ?? []) element.show(result);
            })
            .catch((error) => {
                for (const element of this.elements.get(reference) ?? []) element.showError(error.message);
            })
            .finally(() => {
                this.inFlight.delete(reference);
                if (this.dirty.delete(reference)) this.refresh(reference);
            });
    }

    /** A chart came into view: if what it shows changed meanwhile, ask for it now. */
    shown(reference) {
        if (this.stale.has(reference)) this.refresh(reference);
    }
}
