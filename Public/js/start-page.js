/**
 * `<db-start>`: the page at `/`. Lists the bundled notebooks, each with a thumbnail of its output rendered
 * on the photo this browser used last (or the notebook's own sample), so a person sees what each demo does
 * to their photo before opening it. Thumbnails come over a socket of their own (a throwaway session: the
 * tab's own session is left alone), one notebook at a time, small, and only for the cards in or near view:
 * each is a render of that notebook on the photo, and a new photo made every one of them at once (about
 * 12 CPU-seconds after an upload, while other people's sliders waited).
 */
import { h } from './dom.js';
import { StudioSocket } from './studio-socket.js';
import { PhotoLibrary } from './photo-library.js';
import { isPhotoFile } from './photo-intake.js';
import { postUpload } from './upload.js';

const THUMBNAIL_WIDTH = 320;

export class StartPage extends HTMLElement {
    attach() {
        this.photos = new PhotoLibrary();
        const kept = this.photos.current;
        this.grid = h('ul', { class: 'start-grid', 'aria-label': 'Notebooks' });
        this.state = h('p', { class: 'start-state', role: 'status', text: 'Connecting…' });
        this.replaceChildren(
            h('header', { class: 'notebook-header' },
                h('h1', { text: 'Depthbook' }),
                h('p', { class: 'notebook-description', text: 'Play with the depth in photos. Each notebook is one demo of the talks, as a recipe of steps with live sliders. '
                    + (kept?.name ? `The pictures below show each one on your photo, ${kept.name}.` : 'The pictures below show each one on its sample photo.') }),
                this.photoPicker()),
            this.state, this.grid);
        this.acceptDrops();
        this.load().catch((error) => { this.state.textContent = `Could not reach the studio: ${error.message}`; });
        return this;
    }

    /** A portrait photo of your own (HEIC or JPEG with depth): chosen here or dropped anywhere on the page. */
    photoPicker() {
        const input = h('input', { type: 'file', id: 'start-photo', class: 'start-photo', accept: '.heic,.heif,.jpg,.jpeg,.png,image/*' });
        input.addEventListener('change', () => { if (input.files?.[0]) this.usePhoto(input.files[0]); });
        this.photoState = h('span', { class: 'start-photo-state', role: 'status' });
        return h('p', { class: 'field start-photo-field' },
            h('label', { for: 'start-photo', text: 'See them on your photo (or drop it here):' }), input, this.photoState);
    }

    acceptDrops() {
        document.addEventListener('dragover', (event) => {
            if ([...(event.dataTransfer?.types ?? [])].includes('Files')) event.preventDefault();
        });
        document.addEventListener('drop', (event) => {
            const file = [...(event.dataTransfer?.files ?? [])].find(isPhotoFile);
            if (!file) return;
            event.preventDefault();
            this.usePhoto(file);
        });
    }

    /** Uploads the photo, makes it the one notebooks open on, and shows every notebook on it. */
    async usePhoto(file) {
        this.photoState.textContent = `Uploading ${file.name}…`;
        try {
            const uploaded = await postUpload('/api/upload', file, this.maxUploadBytes);
            this.photos.use({ upload: uploaded.upload }, file.name);
            location.reload();
        } catch (error) {
            this.photoState.textContent = `${file.name} could not be used: ${error.message}`;
        }
    }

    async load() {
        const socket = new StudioSocket(StudioSocket.urlFor(location));
        const opened = new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
        socket.connect();
        await opened;
        const { limits } = await socket.request('hello', { protocol: 1 });
        this.maxUploadBytes = limits?.maxUploadBytes;
        const { notebooks } = await socket.request('listNotebooks');
        const cards = new Map();
        for (const notebook of notebooks ?? []) {
            const picture = h('div', { class: 'start-thumb', dataset: { state: 'rendering' } }, h('span', { text: 'Rendering…' }));
            const link = h('a', { href: `/n/${encodeURIComponent(notebook.name)}`, class: 'start-link' },
                picture, h('strong', { text: notebook.title || notebook.name }));
            this.grid.append(h('li', { class: 'start-card', dataset: { notebook: notebook.name } }, link,
                notebook.description ? h('p', { class: 'start-description', text: notebook.description }) : null));
            cards.set(notebook.name, picture);
        }
        this.state.textContent = '';
        const kept = this.photos.current;
        let seq = 0;
        for await (const notebook of cardsComingIntoView(notebooks ?? [], cards)) {
            const picture = cards.get(notebook.name);
            try {
                const { notebook: document } = await socket.request('openNotebook', { name: notebook.name });
                if (kept) await socket.request('openPhoto', { photo: kept.reference });
                const cell = outputCell(document);
                if (!cell) throw new Error('no output');
                seq += 1;
                const frame = waitForFrame(socket, cell, seq);
                await socket.request('preview', { cell, width: THUMBNAIL_WIDTH, seq });
                const { jpeg } = await frame;
                picture.replaceChildren(h('img', { src: URL.createObjectURL(jpeg), alt: `${notebook.title || notebook.name} on the photo`, width: THUMBNAIL_WIDTH }));
                picture.dataset.state = 'ready';
            } catch (error) {
                picture.replaceChildren(h('span', { text: error.message === 'no output' ? '' : `Not on this photo: ${error.message}` }));
                picture.dataset.state = 'failed';
            }
        }
        socket.close();
    }
}

/**
 * The notebooks in the order their cards come within a screen of the viewport (those already there first,
 * in page order); ends once every card has come. A card waits with `data-state="waiting"` until then.
 */
async function* cardsComingIntoView(notebooks, cards) {
    const pending = new Map(notebooks.map((notebook) => [cards.get(notebook.name), notebook]));
    const ready = [];
    let wake = null;
    const observer = new IntersectionObserver((entries) => {
        for (const entry of entries) {
            if (!entry.isIntersecting || !pending.has(entry.target)) continue;
            ready.push(pending.get(entry.target));
            pending.delete(entry.target);
            observer.unobserve(entry.target);
        }
        ready.sort((a, b) => notebooks.indexOf(a) - notebooks.indexOf(b));
        wake?.();
    }, { rootMargin: '100% 0px' });
    for (const picture of pending.keys()) {
        picture.dataset.state = 'waiting';
        observer.observe(picture);
    }
    while (pending.size > 0 || ready.length > 0) {
        if (ready.length === 0) await new Promise((resolve) => { wake = resolve; });
        wake = null;
        const next = ready.shift();
        if (next) {
            cards.get(next.name).dataset.state = 'rendering';
            yield next;
        }
    }
    observer.disconnect();
}

/** The notebook's last cell with a picture: its result. */
function outputCell(notebook) {
    const cells = (notebook.cells ?? []).filter((cell) => cell.kind === 'step' || cell.kind === 'view');
    return cells.at(-1)?.id ?? null;
}

/** The full frame answering `seq` for `cell`, or the cell's error. */
function waitForFrame(socket, cell, seq) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(null, new Error('no picture within 60 s')), 60_000);
        const onFrame = (event) => {
            const { header } = event.detail;
            if (header.cell === cell && header.seq === seq && !header.coarse) finish(event.detail);
        };
        const onEvent = (event) => {
            const message = event.detail;
            if (message.event === 'cellError' && message.cell === cell && message.seq === seq) finish(null, new Error(message.message));
        };
        function finish(frame, error) {
            clearTimeout(timer);
            socket.removeEventListener('frame', onFrame);
            socket.removeEventListener('event', onEvent);
            if (error) reject(error); else resolve(frame);
        }
        socket.addEventListener('frame', onFrame);
        socket.addEventListener('event', onEvent);
    });
}

customElements.define('db-start', StartPage);
