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
import { PhotoLibrary } from './photo-library.js';
import { stableStringify } from './notebook-graph.js';
import { connectionStatus } from './session/connection-status.js';
import { HistogramRegistry } from './session/histogram-registry.js';
import { ParamEdits } from './session/param-edits.js';
import { PhotoUploads } from './session/photo-uploads.js';
import { PreviewRegistry } from './session/preview-registry.js';
import { TabMemory } from './session/tab-memory.js';
import { introduce } from './session/handshake.js';
import { receiveEvent, receiveFrame } from './session/incoming.js';
import { EditHistory } from './session/history.js';
import { Drafts } from './session/drafts.js';
import { applyNotebook } from './session/apply-notebook.js';
import { restoreRecipe } from './session/recipes.js';

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
        /** The server's bounds on requests, from `hello` (the page keeps no copy; nothing is asked before it). */
        this.limits = null;
        /** The photo plane names a reference may use, from `hello` (`planeNames`), in the server's order. */
        this.planeNames = [];
        this.notebook = null;
        /** The server's graph of the notebook (`{cells: {id: {renders, output, reads, dependents}}}`), sent beside it. */
        this.graph = null;
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
        this.histograms = new HistogramRegistry(socket, () => this.limits);
        /** Photos, depth maps and pictures sent over HTTP (`session/photo-uploads.js`): the page's file handlers use it. */
        this.uploads = new PhotoUploads(this);
        this.edits = new ParamEdits(this);
        this.memory = new TabMemory(store, () => this.notebook
            ? { notebook: this.notebook, photo: this.photo, shared: this.shared, seq: this.seq, path: location.pathname }
            : null, () => this.keepDraft());
        /** Undo and redo (`session/history.js`); unsaved edits kept per notebook beyond the tab (`session/drafts.js`). */
        this.history = new EditHistory(this);
        this.drafts = new Drafts();
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

    /** Says hello and brings the notebook back or opens it (`session/handshake.js`). */
    introduce(reconnected) {
        return introduce(this, reconnected);
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
        this.adopt(result.notebook, result.photo, result.shared ?? (isBundled ? null : name), false, result.graph);
        // A bundled notebook opens on the photo last chosen in this browser (a shared one keeps its own).
        const kept = this.photos.current;
        if (isBundled && kept && stableStringify(kept.reference) !== stableStringify(result.notebook.photo)) {
            try {
                // Your photo under a notebook as it ships is not an edit of the notebook.
                await this.openPhoto(kept.reference, kept.name, { edits: false });
                this.history.reset();
                return;
            } catch (error) {
                if (kept.reference.upload) this.photos.forget(kept.reference.upload);
                this.status(`Your last photo could not be opened (${error.message}); the notebook's own is shown.`, 'error');
            }
        }
        this.runAll();
        this.history.reset();
    }

    /** Drops this tab's edits: the notebook of the address opens again as saved or as it ships. */
    async revert() {
        const target = this.shared ?? this.target;
        const before = structuredClone(this.notebook);
        this.store.save({ notebook: null, edited: false });
        await this.open(target);
        this.setEdited(false);
        // Reverting is a step like any other: Undo brings the edits back.
        this.history.undoStack.push({ notebook: before, label: 'Revert' });
        this.history.changed();
        this.status('Reverted to the original notebook. Undo (Ctrl+Z) brings your changes back.', 'ok');
    }

    adopt(notebook, photo, shared, edited, graph) {
        this.notebook = notebook;
        this.graph = graph ?? null;
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
        const cell = this.cell(cellId);
        const label = this.catalog.get(cell?.effect)?.parameters?.find((entry) => entry.name === name)?.label ?? name;
        this.history.record(`${label} of ${cellId}`, `param:${cellId}:${name}`, Boolean(options?.interactive));
        this.edits.set(cellId, name, value, options);
        this.dispatchEvent(new CustomEvent('paramset', { detail: { cell: cellId, name, value } }));
    }

    /**
     * Replaces the whole document (cells added, removed, reordered, inputs changed) and re-renders. Edits under
     * one `key` in quick succession (a formula being typed) are one step to undo.
     */
    async replaceNotebook(notebook, label = 'the change', key = null) {
        const before = structuredClone(this.notebook);
        await this.pushNotebook(notebook);
        // Recorded once the server took it: a refused edit leaves nothing to undo.
        this.history.replaced(before, label, key);
        this.setEdited(true);
    }

    /** `force`: the controls show the new values even where they hold unsent text (after undo). */
    async pushNotebook(notebook, { force = false, render = true } = {}) {
        const result = await this.socket.request('setNotebook', { notebook });
        this.notebook = result.notebook ?? notebook;
        this.graph = result.graph ?? null;
        this.persist();
        this.dispatchEvent(new CustomEvent('notebook', { detail: { force } }));
        if (render) this.runAll();
    }

    setEdited(edited) {
        if (!edited && this.notebook && !this.draftPending) this.drafts.discard(this.draftKey);
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
        return this.previews.widthFor(key, this.limits?.previewWidth ?? { min: 1, max: Infinity });
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

    /** A frame or a server event (`session/incoming.js`). */
    receiveFrame(frame) {
        receiveFrame(this, frame);
    }

    receiveEvent(message) {
        receiveEvent(this, message);
    }

    failCell(cell, seq, error) {
        if (error.code === 'disconnected') return;
        this.dispatchEvent(new CustomEvent('cellError', { detail: { cell, seq, message: error.message } }));
    }

    // MARK: Photos, saving, exporting

    /** An export's recipe on its original photo, or on `photo` (`session/recipes.js`). */
    restoreRecipe(recipe, photo, name) {
        return restoreRecipe(this, recipe, photo, name);
    }

    /** The open photo's name for people: the file it was uploaded from, or the sample's title. */
    photoName(reference = this.notebook?.photo) {
        if (reference?.sample) return this.samples.find((sample) => sample.id === reference.sample)?.title ?? reference.sample;
        // A shared notebook names its upload (`metadata.photoName`), for those whose browser never saw the file.
        const { metadata } = this.notebook ?? {};
        if (reference?.upload && metadata?.photoUpload === reference.upload && metadata.photoName) return String(metadata.photoName);
        return this.photos.nameOf(reference);
    }

    /** Writes the photo's file name into the notebook (before saving or exporting), so others see it too. */
    async notePhotoName() {
        const reference = this.notebook?.photo;
        const name = reference?.upload ? this.photos.nameOf(reference) : null;
        const metadata = this.notebook?.metadata ?? {};
        if (!name || !this.canEdit || (metadata.photoUpload === reference.upload && metadata.photoName === name)) return;
        await this.pushNotebook({ ...this.notebook, metadata: { ...metadata, photoName: name, photoUpload: reference.upload } }, { render: false });
    }

    /** Opens a photo under the notebook; `edits` says whether that counts as a change to the notebook. */
    async openPhoto(reference, name = null, { edits = true, record = edits } = {}) {
        if (record) this.history.record('the photo');
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

    /**
     * The person chose a photo (picked, uploaded or dropped). On a bundled notebook the recipe is unchanged, so it
     * is not "edited" (no Revert, no draft; the next notebook opens on the same photo anyway); on a shared link
     * it is, since that link shows the photo it was saved with. Undo goes back either way.
     */
    choosePhoto(reference, name = null) {
        return this.openPhoto(reference, name, { edits: Boolean(this.shared), record: true });
    }

    /** Saves an immutable version; returns the absolute share URL and points the address bar at it. */
    async save() {
        const draftBefore = this.draftKey;
        await this.notePhotoName();
        const result = await this.socket.request('save');
        this.drafts.discard(draftBefore);
        this.shared = result.shared;
        const url = new URL(result.url, location.origin).href;
        history.replaceState(null, '', result.url);
        this.target = result.shared;
        this.store.save({ path: location.pathname, shared: result.shared });
        this.edited = true;
        this.setEdited(false);
        return url;
    }

    /** `onWaiting(reason)` hears why the export has not started yet (other exports hold the workers). */
    async exportCell(cellId, format, onProgress, options = {}, onWaiting = undefined) {
        // The export carries the recipe, and with it the original photo's name for whoever drops it back.
        await this.notePhotoName().catch(() => {});
        return this.socket.request('export', { cell: cellId, format, ...options }, { onProgress, onWaiting });
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

    /** Which notebook a draft belongs to: the address's bundled name or saved id. */
    get draftKey() {
        return this.target || this.notebook?.name || '';
    }

    /** Keeps unsaved edits beyond the tab (`Drafts`); watchers and read-only pages have none. */
    keepDraft() {
        // While an older draft waits for an answer, it is not overwritten.
        if (this.edited && this.canEdit && this.notebook && !this.draftPending) this.drafts.save(this.draftKey, this.notebook);
    }

    /** Puts a draft back (an undoable step); its photo opens first when it differs. */
    async restoreDraft(draft) {
        this.draftPending = false;
        this.history.record('the draft');
        await applyNotebook(this, draft.notebook);
        this.setEdited(true);
        this.persistNow();
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
