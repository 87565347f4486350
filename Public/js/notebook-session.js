/**
 * The page's side of one studio session: the notebook as the page shows it, the effect catalog, the photo
 * facts, and every request that keeps previews live.
 *
 * Live sliders follow docs/protocol.md: parameter changes are coalesced per animation frame (one `setParams`
 * per cell per frame, carrying only what changed), every render request gets a rising sequence number, and
 * frames older than what a preview already shows are dropped by the preview itself. The server re-renders
 * the cells that read a changed cell (those with a preview) under the same sequence number, so the whole
 * chain follows the slider.
 *
 * Events: `notebook` (the document was replaced: re-render cells), `frame` (detail: {frame, latencyMs}),
 * `cellError` (detail: {cell, seq, message}), `cellOk` (detail: {cell}), `status` (detail: {text, tone}),
 * `edited` (detail: {edited, shared}), `histogram` (detail: {reference, result}).
 */
import { ProtocolError } from './studio-socket.js';
import { PhotoLibrary } from './photo-library.js';
import { stableStringify, structureOf } from './notebook-graph.js';
import { connectionStatus } from './session/connection-status.js';
import { HistogramRegistry } from './session/histogram-registry.js';
import { ParamEdits } from './session/param-edits.js';
import { PhotoUploads } from './session/photo-uploads.js';
import { PreviewRegistry } from './session/preview-registry.js';
import { TabMemory } from './session/tab-memory.js';

/** Widths the server accepts for a preview until its `hello` says (the server's `limits` are the truth). */
const DEFAULT_PREVIEW_WIDTH = { min: 64, max: 2048 };

export class NotebookSession extends EventTarget {
    /**
     * @param {import('./studio-socket.js').StudioSocket} socket
     * @param {import('./session-store.js').SessionStore} store
     * @param {string} target the bundled name or saved id from the URL (`/n/<target>`), or '' for the default
     */
    constructor(socket, store, target) {
        super();
        this.socket = socket;
        this.store = store;
        this.target = target;
        this.sessionId = null;
        this.resumeKey = null;
        this.role = 'edit';
        /** 'full', or 'read' when the studio has an access token this page does not hold. */
        this.access = 'full';
        /** The server's bounds on requests, from `hello`. */
        this.limits = { previewWidth: DEFAULT_PREVIEW_WIDTH };
        this.notebook = null;
        this.photo = null;
        this.shared = null;
        this.edited = false;
        this.catalog = new Map();
        /** The photos this browser used: the one other notebooks open on, and recent uploads by file name. */
        this.photos = new PhotoLibrary();
        this.samples = [];
        this.bundled = [];
        // The server never answers a request older than the newest it saw for a cell. The stored number is
        // written when a change ends, once a second mid-drag and on pagehide; a crash could lose the last few: start well past it.
        this.seq = (Number(store.load().seq) || 0) + 1000;
        /** The previews and charts on the page, by what they show (`session/`). */
        this.previews = new PreviewRegistry();
        this.histograms = new HistogramRegistry(socket);
        this.uploads = new PhotoUploads(this);
        this.edits = new ParamEdits(this);
        this.memory = new TabMemory(store, () => this.notebook
            ? { notebook: this.notebook, photo: this.photo, shared: this.shared, seq: this.seq, path: location.pathname }
            : null);
        /** What the server said about how this photo was handled, each said once (cleared with the photo). */
        this.photoNotes = new Set();
        /** seq → performance.now() when the request left, for the latency readout */
        this.sentAt = new Map();
        /** seq → {resolve, reject} for crops */
        this.cropWaiters = new Map();

        socket.addEventListener('open', (event) => this.introduce(event.detail.reconnected));
        socket.addEventListener('frame', (event) => this.receiveFrame(event.detail));
        socket.addEventListener('event', (event) => this.receiveEvent(event.detail));
        socket.addEventListener('status', (event) => this.describeConnection(event.detail));
    }

    // MARK: Opening

    /**
     * Says hello (resuming the tab's session if it has one, or watching one view-only with `?watch=<id>`),
     * then brings the notebook back or opens it. A resumed session's hello carries its notebook and photo;
     * a notebook this tab stored that differs (a change the server never got before a refresh) is pushed.
     */
    async introduce(reconnected) {
        const stored = this.store.load();
        const samePage = stored.path === location.pathname;
        // The tab's session is reused even for another notebook, rather than leaving one behind.
        const resumeId = this.sessionId ?? stored.session;
        // The session's id is public (watch links carry it); only its resume key makes this page its editor again.
        const resumeKey = this.resumeKey ?? stored.resume;
        const watch = new URLSearchParams(location.search).get('watch');
        try {
            const fields = { protocol: 1 };
            if (watch) fields.watch = watch;
            else if (resumeId && resumeKey) Object.assign(fields, { session: resumeId, resume: resumeKey });
            const hello = await this.socket.request('hello', fields);
            this.sessionId = hello.session;
            this.resumeKey = hello.resume ?? null;
            this.role = hello.role ?? 'edit';
            this.access = hello.access ?? 'full';
            this.limits = hello.limits ?? this.limits;
            if (!watch) this.store.save({ session: hello.session, resume: hello.resume, path: location.pathname });
            await this.loadCatalogs();
            if (this.access === 'read' && !watch) {
                // Without the token the page may open and look: the notebook as saved, never local edits.
                await this.open(this.target);
                this.status('Connected, read-only.', 'ok');
                return;
            }
            if (watch) {
                if (!hello.notebook) throw new Error('the watched session has no notebook open yet');
                this.adopt(hello.notebook, hello.photo ?? null, hello.shared ?? null, false);
                this.runAll();
                this.status('Watching view-only.', 'ok');
                return;
            }
            const local = this.notebook ?? (samePage ? stored.notebook : null);
            const localPhoto = this.photo ?? (samePage ? stored.photo : null);
            if (hello.resumed && (this.notebook || samePage) && (hello.notebook || local)) {
                const wasEdited = this.notebook ? this.edited : Boolean(stored.edited);
                this.adopt(hello.notebook ?? local, hello.photo ?? localPhoto, hello.shared ?? (samePage ? stored.shared : null) ?? null, wasEdited);
                if (local && stableStringify(local) !== stableStringify(hello.notebook)) await this.pushNotebook(local);
                else this.runAll();
                this.status(reconnected ? 'Reconnected: the session was resumed.' : 'Session resumed.', 'ok');
                return;
            }
            await this.open(this.target);
            if (local) {
                await this.restore(local, stored);
                this.status(reconnected ? 'Reconnected: the old session had ended, so a new one was started and your notebook restored.' : 'Notebook restored.', 'ok');
            } else {
                this.status(reconnected ? 'Reconnected.' : 'Connected.', 'ok');
            }
        } catch (error) {
            this.status(`Could not open the notebook: ${error.message}`, 'error');
        }
    }

    async loadCatalogs() {
        if (this.catalog.size > 0) return;
        const [effects, samples, notebooks] = await Promise.all([
            this.socket.request('effects'),
            this.socket.request('listSamples').catch(() => ({ samples: [] })),
            this.socket.request('listNotebooks').catch(() => ({ notebooks: [] })),
        ]);
        for (const effect of effects.effects ?? []) this.catalog.set(effect.id, effect);
        this.samples = samples.samples ?? [];
        this.bundled = notebooks.notebooks ?? [];
        this.dispatchEvent(new CustomEvent('catalogs'));
    }

    /** Opens a bundled notebook by name or a saved one by id (as in `/n/<target>`). */
    async open(target) {
        const name = target || this.bundled.find((notebook) => notebook.name === 'depth-threshold')?.name || this.bundled[0]?.name;
        if (!name) throw new Error('the server lists no notebooks');
        this.status(`Opening ${name}…`, 'busy');
        this.forgetPhotoState();
        const isBundled = this.bundled.some((notebook) => notebook.name === name);
        const result = await this.socket.request('openNotebook', isBundled ? { name } : { shared: name });
        this.adopt(result.notebook, result.photo, result.shared ?? (isBundled ? null : name), false);
        // A bundled notebook opens on the photo last chosen in this browser (a shared one keeps its own).
        const kept = this.photos.current;
        if (isBundled && kept && stableStringify(kept.reference) !== stableStringify(result.notebook.photo)) {
            try {
                // Your photo under a notebook as it ships is not an edit of the notebook.
                await this.openPhoto(kept.reference, kept.name, { edits: false });
                return;
            } catch (error) {
                if (kept.reference.upload) this.photos.forget(kept.reference.upload);
                this.status(`Your last photo could not be opened (${error.message}); the notebook's own is shown.`, 'error');
            }
        }
        this.runAll();
    }

    /** Drops this tab's edits: the notebook of the address opens again as saved or as it ships. */
    async revert() {
        const target = this.shared ?? this.target;
        this.store.save({ notebook: null, edited: false });
        await this.open(target);
        this.setEdited(false);
        this.status('Reverted to the original notebook.', 'ok');
    }

    /** Puts a notebook edited before a refresh or a lost session back on a fresh server session. */
    async restore(local, stored) {
        if (stableStringify(local.photo) !== stableStringify(this.notebook.photo)) {
            const opened = await this.socket.request('openPhoto', { photo: local.photo });
            this.photo = opened.photo;
            this.forgetPhotoState();
        }
        this.shared = stored.shared ?? this.shared;
        await this.pushNotebook(local);
        this.setEdited(Boolean(stored.edited));
    }

    adopt(notebook, photo, shared, edited) {
        this.notebook = notebook;
        this.photo = photo;
        this.shared = shared;
        this.edited = edited;
        this.persist();
        this.dispatchEvent(new CustomEvent('notebook'));
        this.dispatchEvent(new CustomEvent('edited', { detail: { edited, shared } }));
    }

    get canEdit() {
        return this.role !== 'watch' && this.access !== 'read';
    }

    /** Whether this page asks for its own renders (a watcher only receives the editor's). */
    get canRender() {
        return this.role !== 'watch';
    }

    // MARK: Editing

    /**
     * Records a parameter change and sends it on the next animation frame, merged with any other change to
     * the same cell in that frame (`ParamEdits`). `interactive` is true while a slider moves.
     */
    setParam(cellId, name, value, options) {
        this.edits.set(cellId, name, value, options);
        this.dispatchEvent(new CustomEvent('paramset', { detail: { cell: cellId, name, value } }));
    }

    /** Replaces the whole document (cells added, removed, reordered, inputs changed) and re-renders. */
    async replaceNotebook(notebook) {
        await this.pushNotebook(notebook);
        this.setEdited(true);
    }

    async pushNotebook(notebook) {
        const result = await this.socket.request('setNotebook', { notebook });
        this.notebook = result.notebook ?? notebook;
        this.persist();
        this.dispatchEvent(new CustomEvent('notebook'));
        this.runAll();
    }

    setEdited(edited) {
        if (this.edited === edited) return;
        this.edited = edited;
        this.store.save({ edited });
        this.dispatchEvent(new CustomEvent('edited', { detail: { edited, shared: this.shared } }));
    }

    cell(cellId) {
        return this.notebook?.cells?.find((cell) => cell.id === cellId);
    }

    // MARK: Previews, crops, histograms

    /**
     * Registers a preview element for what it shows: a cell id, or a photo plane (`photo.disparity`); the
     * string is sent and matched exactly as given. Returns an unregister function.
     */
    registerPreview(reference, element) {
        return this.previews.register(reference, element);
    }

    /** Registers a histogram chart for what it shows; returns an unregister function. */
    registerHistogram(reference, element) {
        return this.histograms.register(reference, element);
    }

    /** The width to ask for: what the widest element showing it needs, in device pixels. */
    widthFor(key) {
        return this.previews.widthFor(key, this.limits.previewWidth ?? DEFAULT_PREVIEW_WIDTH);
    }

    requestPreview(reference, { interactive = false } = {}) {
        const key = reference;
        // Watchers may not ask for renders: they get every frame the editor's requests produce.
        if (!this.socket.isOpen || !this.canRender) return;
        const seq = this.nextSeq();
        this.sentAt.set(seq, performance.now());
        this.previews.awaiting(key, seq);
        this.socket.request('preview', { cell: key, width: this.widthFor(key), seq, interactive })
            .catch((error) => this.failCell(key, seq, error));
    }

    /** Asks for every registered preview again: after opening, reconnecting, or "Run all". */
    runAll() {
        for (const key of this.previews.references()) this.requestPreview(key);
        for (const key of this.histograms.references()) this.histograms.refresh(key);
    }

    /** Asks for a full-resolution crop; resolves with the crop frame. */
    requestCrop(cellId, rect) {
        const seq = this.nextSeq();
        this.sentAt.set(seq, performance.now());
        return new Promise((resolve, reject) => {
            this.cropWaiters.set(seq, { resolve, reject });
            this.socket.request('crop', { cell: cellId, ...rect, seq }).catch((error) => {
                this.cropWaiters.delete(seq);
                reject(error);
            });
        });
    }

    /** A chart came into view: if what it shows changed meanwhile, ask for it now. */
    histogramShown(key) {
        this.histograms.shown(key);
    }

    /** Frames and notes belong to a photo: a new photo (or notebook) starts without them. */
    forgetPhotoState() {
        this.previews.forgetFrames();
        this.photoNotes.clear();
    }

    receiveFrame(frame) {
        const { header } = frame;
        const key = header.cell;
        const sent = this.sentAt.get(header.seq);
        const latencyMs = sent === undefined ? null : frame.receivedAt - sent;
        if (!header.coarse) this.forgetSentBefore(header.seq);
        if (header.kind === 'crop') {
            const waiter = this.cropWaiters.get(header.seq);
            this.cropWaiters.delete(header.seq);
            waiter?.resolve(frame);
            return;
        }
        this.previews.show(key, frame);
        this.dispatchEvent(new CustomEvent('frame', { detail: { frame, key, latencyMs } }));
        for (const note of header.notes ?? []) {
            if (this.photoNotes.has(note)) continue;
            this.photoNotes.add(note);
            this.dispatchEvent(new CustomEvent('photoNote', { detail: { note } }));
        }
        // A cell's histogram (and its marker) changes exactly when the cell renders anew.
        if (!header.coarse) this.histograms.refresh(key);
    }

    forgetSentBefore(seq) {
        for (const sentSeq of this.sentAt.keys()) if (sentSeq < seq - 512) this.sentAt.delete(sentSeq);
    }

    receiveEvent(message) {
        if (message.event === 'cellError') {
            const waiter = this.cropWaiters.get(message.seq);
            if (waiter) {
                this.cropWaiters.delete(message.seq);
                waiter.reject(new ProtocolError('render', message.message));
            }
            // A failed crop is reported in the zoom dialog; the cell's own output is fine.
            if (message.kind === 'crop' || waiter) return;
            this.dispatchEvent(new CustomEvent('cellError', { detail: { cell: String(message.cell), seq: message.seq, message: String(message.message ?? 'the render failed') } }));
        } else if (message.event === 'notebook' && message.notebook) {
            // Sent to watchers when the editor changes the notebook or the photo; the frames come by themselves.
            const before = structureOf(this.notebook, this.photo);
            this.notebook = message.notebook;
            if (message.photo) {
                this.photo = message.photo;
                this.forgetPhotoState();
            }
            this.dispatchEvent(new CustomEvent('notebook'));
            if (structureOf(this.notebook, this.photo) !== before) this.runAll();
        }
    }

    failCell(cell, seq, error) {
        if (error.code === 'disconnected') return;
        this.dispatchEvent(new CustomEvent('cellError', { detail: { cell, seq, message: error.message } }));
    }

    // MARK: Photos, saving, exporting

    /** Uploads a photo (and optionally a depth map for it) and opens it (see `PhotoUploads`). */
    uploadPhoto(file, depthFile = null, options = {}) {
        return this.uploads.uploadPhoto(file, depthFile, options);
    }

    uploadFile(file) {
        return this.uploads.uploadFile(file);
    }

    attachDepth(upload, depthFile, options = {}) {
        return this.uploads.attachDepth(upload, depthFile, options);
    }

    /** An export's recipe on the photo it came in: the photo opens, then the recipe replaces the notebook. */
    async restoreRecipe(recipe, reference, name) {
        // A new recipe is not the shared link's; opening the photo marks the page edited.
        this.shared = null;
        await this.openPhoto(reference, name);
        await this.pushNotebook({ ...recipe, photo: reference });
        if (this.bundled.some((notebook) => notebook.name === recipe.name)) {
            history.replaceState(null, '', `/n/${encodeURIComponent(recipe.name)}`);
            this.target = recipe.name;
            this.store.save({ path: location.pathname });
        }
    }

    /** The open photo's name for people: the file it was uploaded from, or the sample's title. */
    photoName(reference = this.notebook?.photo) {
        if (reference?.sample) return this.samples.find((sample) => sample.id === reference.sample)?.title ?? reference.sample;
        return this.photos.nameOf(reference);
    }

    uploadPicture(file) {
        return this.uploads.uploadPicture(file);
    }

    /** Opens a photo under the notebook; `edits` says whether that counts as a change to the notebook. */
    async openPhoto(reference, name = null, { edits = true } = {}) {
        const result = await this.socket.request('openPhoto', { photo: reference });
        this.photos.use(reference, name ?? this.photoName(reference));
        this.forgetPhotoState();
        this.photo = result.photo;
        this.notebook = { ...this.notebook, photo: reference };
        if (edits) this.setEdited(true);
        this.persist();
        this.dispatchEvent(new CustomEvent('notebook'));
        this.runAll();
    }

    /** Saves an immutable version; returns the absolute share URL and points the address bar at it. */
    async save() {
        const result = await this.socket.request('save');
        this.shared = result.shared;
        const url = new URL(result.url, location.origin).href;
        history.replaceState(null, '', result.url);
        this.target = result.shared;
        this.store.save({ path: location.pathname, shared: result.shared });
        this.edited = true;
        this.setEdited(false);
        return url;
    }

    exportCell(cellId, format, onProgress, options = {}) {
        return this.socket.request('export', { cell: cellId, format, ...options }, { onProgress });
    }

    // MARK: Bookkeeping

    nextSeq() {
        this.seq += 1;
        return this.seq;
    }

    /** Stores the notebook and sequence number for a refresh, at most once per animation frame. */
    persist() {
        this.memory.persist();
    }

    /** Stores at once (the page is going away, perhaps mid-drag). */
    persistNow() {
        this.memory.persistNow();
    }

    status(text, tone, extra = {}) {
        this.dispatchEvent(new CustomEvent('status', { detail: { text, tone, ...extra } }));
    }

    /** The connection's state for people; while lost, `retryAt` lets the toolbar count down and offer a retry. */
    describeConnection(detail) {
        const shown = connectionStatus(detail);
        if (shown) this.status(shown.text, shown.tone, shown.extra);
    }

    /** Reconnects now rather than after the backoff. */
    retryNow() {
        this.socket.retryNow();
    }
}
