/**
 * `<db-photo-cell>`: the photo the notebook renders on. Choose a bundled sample or upload a HEIC/JPEG (or an
 * image plus a separate depth map); then every plane the photo carries is shown side by side: the image, the
 * disparity in a colour map, the portrait matte and each semantic matte, each a server frame, with its size,
 * and the photo's metadata below. A refused upload shows its message in the cell.
 */
import { h, uniqueId } from '../dom.js';
import { photoPlanes } from '../notebook-graph.js';
import { PhotoIntake } from '../photo-intake.js';
import { PreviewImage } from '../widgets/preview-image.js';
import { FactsList } from '../widgets/facts-list.js';

const PLANE_TITLES = {
    image: 'Image', disparity: 'Disparity (colour map)', subject: 'Subject (from depth)', portraitEffectsMatte: 'Portrait matte', skin: 'Skin matte',
    hair: 'Hair matte', teeth: 'Teeth matte', glasses: 'Glasses matte', sky: 'Sky matte',
    personMatte: 'Person matte (learned)',
};

/**
 * A plane's title; depth the server estimated (a photo taken without depth) says so with the server's own words
 * (`estimated` in the photo facts' depth), on the depth planes and on the subject made from them.
 */
function planeTitle(plane) {
    const title = PLANE_TITLES[plane.name] ?? plane.name;
    const estimated = plane.facts?.estimated;
    if (typeof estimated === 'string' && (plane.name === 'disparity' || plane.name === 'depth')) return `${title}, ${estimated}`;
    return title;
}

export class PhotoCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {object} cell the photo cell; its own preview is the image (every server renders a photo cell),
     *   the other planes are asked for as `photo.<plane>` and each shows its own error if refused.
     */
    attach(session, cell) {
        // Attached again in place when the photo gains a plane (the `photo` event): the old listener goes first,
        // or every later note shows twice.
        this.session?.removeEventListener('photoNote', this.onPhotoNote);
        this.session = session;
        const children = [];
        if (session.canEdit) children.push(this.buildSourcePicker());
        const planes = photoPlanes(session.photo, session.planeNames).filter((plane) => plane.name !== 'depth');
        const grid = h('div', { class: 'plane-grid' });
        for (const plane of planes) {
            const title = planeTitle(plane);
            const reference = plane.name === 'image' ? cell.id : plane.reference;
            const preview = new PreviewImage().attach(session, reference, `${title} of the photo`);
            preview.addEventListener('imagepoint', (event) => {
                document.querySelector('db-zoom')?.zoom(session, reference, event.detail);
            });
            const size = plane.width && plane.height ? `${plane.width}×${plane.height}` : '';
            grid.append(h('figure', { class: 'plane', dataset: { plane: plane.name } },
                preview,
                h('figcaption', {}, h('strong', { text: title }), size ? h('span', { class: 'plane-size', text: ` ${size}` }) : null)));
        }
        // Planes the server is still making (the learned person matte, a second or so): said, then shown.
        for (const name of Array.isArray(session.photo?.coming) ? session.photo.coming : []) {
            grid.append(h('figure', { class: 'plane plane-coming', dataset: { coming: name } },
                h('p', { class: 'plane-placeholder', role: 'status', text: 'Being made…' }),
                h('figcaption', {}, h('strong', { text: PLANE_TITLES[name] ?? name }), h('span', { class: 'plane-size', text: ' coming' }))));
        }
        if (planes.length === 0) grid.append(h('p', { text: 'No photo is open.' }));
        children.push(grid);
        // How the server had to handle this photo (a matte stood in for, a plane left out): said here, once.
        this.notes = h('ul', { class: 'photo-notes', 'aria-live': 'polite', hidden: session.photoNotes.size === 0 },
            ...[...session.photoNotes].map((note) => h('li', { text: note })));
        children.push(this.notes);
        this.onPhotoNote = (event) => {
            this.notes.append(h('li', { text: event.detail.note }));
            this.notes.hidden = false;
        };
        session.addEventListener('photoNote', this.onPhotoNote);
        if (session.photo) {
            children.push(h('details', { class: 'photo-facts' },
                h('summary', {}, 'Photo metadata'), new FactsList().attach(session.photo)));
        }
        this.replaceChildren(...children);
        return this;
    }

    disconnectedCallback() {
        this.session?.removeEventListener('photoNote', this.onPhotoNote);
    }

    buildSourcePicker() {
        const session = this.session;
        const sampleId = uniqueId('sample');
        // The samples, then the photos this browser uploaded lately (by file name), then the one open now.
        const reference = session.notebook?.photo ?? {};
        const recent = session.photos.recent;
        const select = h('select', { id: sampleId, class: 'photo-choice' },
            h('optgroup', { label: 'Samples' },
                ...session.samples.map((sample) => h('option', { value: `sample:${sample.id}`, text: `${sample.title ?? sample.id} (${sample.width}×${sample.height})` }))),
            recent.length ? h('optgroup', { label: 'Your recent photos' },
                ...recent.map((entry) => h('option', { value: `upload:${entry.upload}`, text: entry.name }))) : null);
        if (reference.upload && !recent.some((entry) => entry.upload === reference.upload)) {
            select.append(h('option', { value: `upload:${reference.upload}`, text: session.photoName(reference) ?? 'Uploaded photo' }));
        }
        if (reference.sample) select.value = `sample:${reference.sample}`;
        else if (reference.upload) select.value = `upload:${reference.upload}`;
        const openSample = h('button', {
            type: 'button', class: 'open-photo',
            onclick: () => {
                const [kind, id] = select.value.split(/:(.*)/s);
                const chosen = kind === 'upload' ? { upload: id } : { sample: id };
                this.guard(session.choosePhoto(chosen, null).catch((error) => {
                    if (chosen.upload) session.photos.forget(chosen.upload);
                    throw error;
                }), 'Opening the photo');
            },
        }, 'Open');
        const shownName = session.photoName(reference);
        this.currentName = h('p', { class: 'photo-name' }, 'On: ', h('strong', { text: shownName ?? 'a photo' }),
            ' — or drop a photo, a depth map or a Depthbook export anywhere on the page.');

        const fileId = uniqueId('upload');
        const depthId = uniqueId('depth');
        const file = h('input', { type: 'file', id: fileId, class: 'upload-photo', accept: '.heic,.heif,.jpg,.jpeg,.png,image/*' });
        const depth = h('input', { type: 'file', id: depthId, class: 'upload-depth', accept: '.jpg,.jpeg,.png,image/*' });
        this.uploadStatus = h('span', { class: 'upload-status', role: 'status' });
        const polarityId = uniqueId('polarity');
        const polarity = h('select', { id: polarityId, class: 'depth-polarity' },
            h('option', { value: '', text: 'Worked out from the photo' }),
            h('option', { value: 'nearer', text: 'Brighter is nearer' }),
            h('option', { value: 'farther', text: 'Brighter is farther' }));
        const form = h('form', { class: 'upload-form' },
            h('div', { class: 'field' }, h('label', { for: fileId, text: 'Photo (HEIC or JPEG)' }), file),
            h('div', { class: 'field' }, h('label', { for: depthId, text: 'Depth map (optional, for a plain image)' }), depth),
            h('div', { class: 'field' }, h('label', { for: polarityId, text: 'Depth map runs' }), polarity),
            h('button', { type: 'submit', class: 'upload-button' }, 'Upload'),
            this.uploadStatus);
        const upload = () => {
            const photo = file.files?.[0];
            if (!photo) {
                this.problem('Choose a photo file first.');
                return;
            }
            this.uploadStatus.textContent = `Uploading ${photo.name}…`;
            const files = [photo, depth.files?.[0]].filter(Boolean);
            this.guard(new PhotoIntake(session).take(files, { brighter: polarity.value || null }).then((done) => session.status(done, 'ok')), `Uploading ${photo.name}`);
        };
        form.addEventListener('submit', (event) => {
            event.preventDefault();
            upload();
        });
        // Choosing a file is asking for it: the photo uploads at once (with the depth map, if one was chosen),
        // and a depth map chosen after its photo uploads the pair.
        file.addEventListener('change', () => { if (file.files?.length) upload(); });
        depth.addEventListener('change', () => {
            if (file.files?.length && depth.files?.length) upload();
            // The picker shows no file name (see the CSS): say which map waits for its photo.
            else if (depth.files?.length) this.uploadStatus.textContent = `Depth map ${depth.files[0].name} chosen: now choose its photo.`;
        });
        return h('div', { class: 'photo-source' },
            this.currentName,
            h('div', { class: 'field' }, h('label', { for: sampleId, text: 'Photo' }), select, openSample),
            form);
    }

    async guard(promise, what) {
        try {
            await promise;
            this.dispatchEvent(new CustomEvent('cellfixed', { bubbles: true }));
        } catch (error) {
            if (this.uploadStatus) this.uploadStatus.textContent = '';
            this.problem(`${what} failed: ${error.message}`);
        }
    }

    problem(message) {
        this.dispatchEvent(new CustomEvent('cellproblem', { bubbles: true, detail: { message } }));
    }
}

customElements.define('db-photo-cell', PhotoCell);
