/**
 * Unsaved edits kept per notebook in localStorage, so they outlast the tab: another tab, or the browser
 * restarted, finds them and offers them back ("restore / discard") when the same notebook opens. A draft is
 * the whole notebook (its photo reference included) and when it was written; it goes when the notebook is
 * saved, reverted, undone back to where it opened, or discarded. The newest twenty are kept.
 */
const PREFIX = 'depthbook.draft:';
const KEEP = 20;

export class Drafts {
    constructor(storage = window.localStorage) {
        this.storage = storage;
    }

    /** @returns {{notebook: object, savedAt: number} | null} */
    load(key) {
        try {
            const draft = JSON.parse(this.storage.getItem(PREFIX + key) ?? 'null');
            return draft?.notebook && Array.isArray(draft.notebook.cells) ? draft : null;
        } catch {
            return null;
        }
    }

    save(key, notebook) {
        try {
            const fresh = this.storage.getItem(PREFIX + key) === null;
            this.storage.setItem(PREFIX + key, JSON.stringify({ notebook, savedAt: Date.now() }));
            if (fresh) this.trim();
        } catch {
            // Storage full or disabled: the tab still keeps its own copy for a refresh.
        }
    }

    discard(key) {
        try {
            this.storage.removeItem(PREFIX + key);
        } catch {
            // Nothing to remove.
        }
    }

    /** Drops the oldest drafts beyond the newest `KEEP`. */
    trim() {
        const drafts = [];
        for (let i = 0; i < this.storage.length; i += 1) {
            const key = this.storage.key(i);
            if (key?.startsWith(PREFIX)) drafts.push([key, JSON.parse(this.storage.getItem(key) ?? '{}').savedAt ?? 0]);
        }
        drafts.sort((a, b) => b[1] - a[1]);
        for (const [key] of drafts.slice(KEEP)) this.storage.removeItem(key);
    }
}
