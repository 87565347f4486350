/**
 * The previews on the page, by what they show (a cell id or a photo plane such as `photo.disparity`), and the
 * newest frame received for each. The server replays each cell's newest frame when a page attaches (a watcher
 * joining, a resumed session), before the page has built its cells: a preview that registers later starts
 * from that frame instead of waiting for the next render.
 */
export class PreviewRegistry {
    constructor() {
        /** reference → Set of preview elements showing it */
        this.elements = new Map();
        /** reference → the newest frame received for it */
        this.latest = new Map();
        /** reference → the sequence number of the newest request that renders it, or 'pending' while a change
         * that will render it waits to be sent; mirrored as `data-awaited-seq` so a test can wait for that frame. */
        this.awaited = new Map();
    }

    /** The newest request for `reference` has number `seq` ('pending': a change is about to be sent). */
    awaiting(reference, seq) {
        this.awaited.set(reference, seq);
        for (const element of this.elements.get(reference) ?? []) element.dataset.awaitedSeq = String(seq);
    }

    /** The server scheduled a render of `reference` under `seq`: awaited unless something newer already is. */
    awaitingIfOlder(reference, seq) {
        const awaited = this.awaited.get(reference);
        if (this.has(reference) && (awaited === undefined || (typeof awaited === 'number' && awaited < seq))) this.awaiting(reference, seq);
    }

    /** Whether some preview shows `reference`. */
    has(reference) {
        return this.elements.has(reference);
    }

    /** Adds a preview; returns the function that removes it. */
    register(reference, element) {
        if (!this.elements.has(reference)) this.elements.set(reference, new Set());
        this.elements.get(reference).add(element);
        if (this.awaited.has(reference)) element.dataset.awaitedSeq = String(this.awaited.get(reference));
        const latest = this.latest.get(reference);
        if (latest) queueMicrotask(() => element.showFrame(latest));
        return () => {
            this.elements.get(reference)?.delete(element);
            if (this.elements.get(reference)?.size === 0) this.elements.delete(reference);
        };
    }

    references() {
        return this.elements.keys();
    }

    /** Whether some preview of `reference` is on screen or near it (a pinned one counts). */
    seen(reference) {
        return [...(this.elements.get(reference) ?? [])].some((preview) => preview.onScreen);
    }

    /** The width to ask for: what the widest element showing it needs, rounded up, within `limits`. */
    widthFor(reference, { min, max }) {
        let width = min;
        for (const element of this.elements.get(reference) ?? []) width = Math.max(width, element.wantedWidth());
        return Math.min(max, Math.max(min, Math.ceil(width / 32) * 32));
    }

    /** Keeps `frame` if it is the newest for its reference and hands it to every preview showing it. */
    show(reference, frame) {
        const kept = this.latest.get(reference)?.header;
        const { header } = frame;
        if (!kept || header.seq > kept.seq || (header.seq === kept.seq && kept.coarse && !header.coarse)) this.latest.set(reference, frame);
        for (const element of this.elements.get(reference) ?? []) element.showFrame(frame);
    }

    /** Frames belong to a photo: a new photo (or notebook) starts without them. */
    forgetFrames() {
        this.latest.clear();
    }
}
