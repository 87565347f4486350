import { postUpload } from '../upload.js';

/**
 * Photos, depth maps and pictures sent to the studio over HTTP (`/api/upload`), and what the session opens
 * from them. The session opens photos; this only moves files.
 */
export class PhotoUploads {
    /** @param {{openPhoto: Function, photos: import('../photo-library.js').PhotoLibrary}} session */
    constructor(session) {
        this.session = session;
    }

    /** The studio's largest upload (`hello`), so a larger file is refused before it is sent. */
    get maxBytes() {
        return this.session.limits?.maxUploadBytes ?? Infinity;
    }

    /**
     * Uploads a photo (and optionally a separate depth map for it), then opens it.
     * @throws {Error} with the server's message when the upload is refused
     */
    async uploadPhoto(file, depthFile = null, { brighter = null } = {}) {
        let uploaded = await postUpload('/api/upload', file, this.maxBytes);
        if (depthFile) uploaded = await postUpload(depthURL(uploaded.upload, brighter), depthFile, this.maxBytes);
        await this.session.choosePhoto({ upload: uploaded.upload }, depthFile ? `${file.name} + ${depthFile.name}` : file.name);
        return uploaded;
    }

    /** Uploads a file without opening it: its id, facts and (for an export) recipe, to decide what to do. */
    uploadFile(file) {
        return postUpload('/api/upload', file, this.maxBytes);
    }

    /**
     * Pairs an uploaded photo with a depth map file and opens the pair. `brighter`: 'nearer' or 'farther', which
     * way the map's grey runs; null lets the server work it out.
     */
    async attachDepth(upload, depthFile, { brighter = null } = {}) {
        const paired = await postUpload(depthURL(upload, brighter), depthFile, this.maxBytes);
        await this.session.choosePhoto({ upload: paired.upload }, `${this.session.photos.nameOf({ upload }) ?? 'photo'} + ${depthFile.name}`);
    }

    /**
     * Uploads a picture a parameter will name (Backdrop's own background); returns its upload id.
     * @throws {Error} with the server's message when the upload is refused
     */
    async uploadPicture(file) {
        return (await this.uploadFile(file)).upload;
    }
}

/** Where a depth map for an uploaded photo goes, with which way its grey runs when the person said ('nearer' or 'farther'). */
function depthURL(upload, brighter) {
    return `/api/upload?depthFor=${encodeURIComponent(upload)}${brighter ? `&brighter=${encodeURIComponent(brighter)}` : ''}`;
}
