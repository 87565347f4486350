/**
 * What a browser tab remembers across a refresh (sessionStorage, so each tab has its own): the server
 * session id and resume key, the notebook as last edited, the photo facts, and the last sequence number used
 * (the server never answers a request older than the newest it has seen for a cell, so numbering must keep
 * rising across a refresh of the same session).
 */
const KEY = 'depthbook.tab';

export class SessionStore {
    constructor(storage = window.sessionStorage) {
        this.storage = storage;
        /** What this page last stored or read, so a save does not parse the whole record again. */
        this.known = null;
    }

    /** @returns {{session?: string, resume?: string, path?: string, notebook?: object, photo?: object, shared?: string|null, seq?: number, collapsed?: string[], edited?: boolean}} */
    load() {
        try {
            const value = JSON.parse(this.storage.getItem(KEY) ?? '{}');
            this.known = value && typeof value === 'object' ? value : {};
        } catch {
            this.known = {};
        }
        return { ...this.known };
    }

    /** Merges `patch` into what is stored. */
    save(patch) {
        const next = { ...(this.known ?? this.load()), ...patch };
        this.known = next;
        try {
            this.storage.setItem(KEY, JSON.stringify(next));
        } catch {
            // Storage full or disabled: a refresh will then reopen the notebook from the server instead.
        }
        return next;
    }

    clear() {
        this.known = null;
        this.storage.removeItem(KEY);
    }
}
