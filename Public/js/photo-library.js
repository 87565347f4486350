/**
 * The photos this browser used (localStorage, shared by its tabs): the one in use, so opening another
 * notebook keeps it, and the uploads used recently, by the name of the file they came from, so the photo
 * cell can show the name and offer them again. Only references and names are kept, never pixels.
 */
const KEY = 'depthbook.photos';
const RECENT = 8;

export class PhotoLibrary {
    constructor(storage = window.localStorage) {
        this.storage = storage;
    }

    /** @returns {{current?: {reference: object, name?: string}, recent: {upload: string, name: string, at: number}[]}} */
    load() {
        try {
            const value = JSON.parse(this.storage.getItem(KEY) ?? '{}');
            return { current: value.current, recent: Array.isArray(value.recent) ? value.recent : [] };
        } catch {
            return { recent: [] };
        }
    }

    write(value) {
        try {
            this.storage.setItem(KEY, JSON.stringify(value));
        } catch {
            // Storage full or disabled: the photo is then simply not remembered.
        }
    }

    /** The photo the user chose last (a sample or an upload), which other notebooks open on. */
    get current() {
        return this.load().current ?? null;
    }

    /** Records a choice; an upload also goes to the front of the recent list under `name`. */
    use(reference, name) {
        const value = this.load();
        value.current = { reference, name };
        if (reference?.upload) {
            value.recent = [{ upload: reference.upload, name: name || 'photo', at: Date.now() },
                ...value.recent.filter((entry) => entry.upload !== reference.upload)].slice(0, RECENT);
        }
        this.write(value);
    }

    /** Forgets an upload the server no longer has (its retention removed it). */
    forget(upload) {
        const value = this.load();
        value.recent = value.recent.filter((entry) => entry.upload !== upload);
        if (value.current?.reference?.upload === upload) delete value.current;
        this.write(value);
    }

    /** The file name an upload came from, when this browser uploaded it. */
    nameOf(reference) {
        if (!reference?.upload) return null;
        return this.load().recent.find((entry) => entry.upload === reference.upload)?.name ?? null;
    }

    get recent() {
        return this.load().recent;
    }
}
