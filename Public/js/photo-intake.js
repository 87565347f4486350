/**
 * What to do with files a person hands the page (dropped anywhere, or picked in the photo cell): a photo
 * opens; two files are a photo and its depth map; a plain picture dropped on a photo without depth may be
 * that photo's depth map (asked); a Depthbook export brings its recipe back (asked first, since it replaces
 * the notebook on the page).
 */
import { ask } from './widgets/ask-dialog.js';
import { originalName } from './session/recipes.js';
import { postUpload } from './upload.js';

const IMAGE_NAME = /\.(heic|heif|jpe?g|png)$/i;

export function isPhotoFile(file) {
    return IMAGE_NAME.test(file.name) || /^image\//.test(file.type);
}

export class PhotoIntake {
    /** @param {import('./notebook-session.js').NotebookSession} session */
    constructor(session) {
        this.session = session;
    }

    /**
     * @param {File[]} files
     * @param {{brighter?: ?string}} [options] which way a depth map among them runs ('nearer' or 'farther'; null: worked out)
     * @returns {Promise<string>} what was done, for the status line
     */
    async take(files, { brighter = null } = {}) {
        const photos = files.filter(isPhotoFile);
        if (photos.length === 0) throw new Error('drop or choose a HEIC, JPEG or PNG file');
        if (photos.length >= 2) {
            // The depth map is the file that says so in its name, else the second one.
            const depth = photos.find((file) => /depth|disparity/i.test(file.name)) ?? photos[1];
            const photo = photos.find((file) => file !== depth);
            await this.session.uploads.uploadPhoto(photo, depth, { brighter });
            return `Opened ${photo.name} with ${depth.name} as its depth map.`;
        }
        const [file] = photos;
        const uploaded = await this.session.uploads.uploadFile(file);
        if (uploaded.notebook) {
            const recipe = uploaded.notebook;
            const title = recipe.title || recipe.name || 'a notebook';
            const original = originalName(this.session, recipe);
            const answer = await ask({
                title: 'This photo carries a recipe',
                message: `${file.name} was made by Depthbook with the recipe “${title}”${original ? ` on ${original}` : ''}. Restore that recipe on its original photo? It replaces the notebook on this page.`,
                answers: [{ value: 'recipe', label: 'Restore the recipe' }, { value: 'photo', label: 'Use the picture only' }],
            });
            if (answer === null) return 'Nothing changed.';
            if (answer === 'recipe') return this.restore(recipe, uploaded.upload, file.name, title, original);
        }
        const current = this.session.photo;
        // Depth the server only estimated (from the person matte) is no depth of the file's own: a grey picture
        // dropped next may be the current photo's real depth map (and a depth map may show a person's outline).
        const ownDepth = (facts) => Boolean(facts?.depth) && !facts.depth.estimated;
        if (!ownDepth(uploaded.photo) && current?.source?.upload && !ownDepth(current)) {
            const currentName = this.session.photoName() ?? 'the photo';
            const answer = await ask({
                title: 'A picture without depth',
                message: `${file.name} has no depth of its own, and neither has ${currentName}. Is it ${currentName}'s depth map?`,
                answers: [{ value: 'detect', label: 'Its depth map (work out which way it runs)' },
                    { value: 'nearer', label: 'Its depth map, brighter is nearer' }, { value: 'farther', label: 'Its depth map, brighter is farther' },
                    { value: 'photo', label: 'Open it as a photo' }],
            });
            if (answer === null) return 'Nothing changed.';
            if (answer === 'nearer' || answer === 'farther') {
                await this.session.uploads.attachDepth(current.source.upload, file, { brighter: answer });
                return `Using ${file.name} as the depth map of ${currentName} (brighter is ${answer}).`;
            }
            if (answer === 'detect') {
                await this.session.uploads.attachDepth(current.source.upload, file);
                return `Using ${file.name} as the depth map of ${currentName}.`;
            }
        }
        await this.session.choosePhoto({ upload: uploaded.upload }, file.name);
        return `Opened ${file.name}.`;
    }

    /**
     * Restores an export's recipe on its original photo. When this studio no longer has it (uploads expire,
     * or the export came from another studio), asks for the original file rather than run the recipe again
     * on the export, whose pixels it already changed; using the export anyway is offered, with that warning.
     */
    async restore(recipe, exportUpload, exportName, title, original) {
        try {
            await this.session.restoreRecipe(recipe, recipe.photo, original);
            return `Restored the recipe “${title}” on ${this.session.photoName() ?? 'its original photo'}.`;
        } catch (error) {
            if (error.code !== 'original_missing') throw error;
        }
        const choice = await ask({
            title: 'The original photo is not here',
            message: `“${title}” was made on ${original ?? 'a photo'} that this studio does not have (uploads are kept for a week). Choose the original file to run the recipe on it. ${exportName} is the result: the recipe would apply to it a second time.`,
            answers: [{ value: 'export', label: `Use ${exportName} anyway` }],
            file: { label: 'The original photo', accept: '.heic,.heif,.jpg,.jpeg,.png,image/*' },
        });
        if (choice === null) return 'Nothing changed.';
        if (choice === 'export') {
            await this.session.restoreRecipe(recipe, { upload: exportUpload }, exportName);
            return `Restored “${title}” on ${exportName}, an already processed picture: the recipe applies twice.`;
        }
        const uploaded = await postUpload('/api/upload', choice, this.session.limits?.maxUploadBytes);
        await this.session.restoreRecipe(recipe, { upload: uploaded.upload }, choice.name);
        return `Restored the recipe “${title}” on ${choice.name}.`;
    }
}
