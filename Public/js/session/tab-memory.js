/**
 * What the tab keeps for a refresh: the notebook, its photo, the shared version and the sequence number,
 * written at most once per animation frame (and at once when the page goes away, perhaps mid-drag).
 */
export class TabMemory {
    /**
     * @param {import('../session-store.js').SessionStore} store
     * @param {() => object | null} snapshot what to keep now (null: nothing to keep)
     * @param {() => void} [also] run at each store too (the notebook's draft beyond the tab)
     */
    constructor(store, snapshot, also = () => {}) {
        this.store = store;
        this.snapshot = snapshot;
        this.also = also;
        this.scheduled = false;
    }

    /** Stores on the next animation frame. */
    persist() {
        if (this.scheduled) return;
        this.scheduled = true;
        requestAnimationFrame(() => {
            this.scheduled = false;
            this.persistNow();
        });
    }

    /** Stores at once. */
    persistNow() {
        const snapshot = this.snapshot();
        if (snapshot) this.store.save(snapshot);
        this.also();
    }
}
