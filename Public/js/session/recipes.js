/**
 * A Depthbook export brings its recipe back. The recipe runs on the photo it was made on (the notebook the
 * export carries names it: a sample, or an upload this studio may still hold), never on the export itself,
 * whose pixels already went through it: run again there, the recipe would apply twice.
 */
import { stableStringify } from '../notebook-graph.js';

/** The original photo the recipe names is not on this studio (or the recipe names none). */
export class OriginalMissing extends Error {
    constructor(message) {
        super(message);
        this.code = 'original_missing';
    }
}

/**
 * Opens `photo` and puts `recipe` on it, as one step to undo.
 * @param {import('../notebook-session.js').NotebookSession} session
 * @param {object} recipe the exported notebook
 * @param {object} photo the reference to run it on: the original (`recipe.photo`), or another the person chose
 * @param {string|null} name what to call that photo
 */
export async function restoreRecipe(session, recipe, photo, name) {
    session.history.record('the recipe from the export');
    // A new recipe is not the shared link's.
    session.shared = null;
    try {
        await session.openPhoto(photo, name, { record: false });
    } catch (error) {
        session.history.undoStack.pop();
        session.history.changed();
        if (stableStringify(photo) === stableStringify(recipe.photo)) throw new OriginalMissing(error.message);
        throw error;
    }
    await session.pushNotebook({ ...recipe, photo });
    session.setEdited(true);
    if (session.bundled.some((notebook) => notebook.name === recipe.name)) {
        history.replaceState(null, '', `/n/${encodeURIComponent(recipe.name)}`);
        session.target = recipe.name;
        session.store.save({ path: location.pathname });
    }
}

/** The name the recipe's original photo goes by: as the export recorded it, else as this browser knows it. */
export function originalName(session, recipe) {
    const photo = recipe.photo;
    if (photo?.upload && recipe.metadata?.photoUpload === photo.upload && recipe.metadata?.photoName) return String(recipe.metadata.photoName);
    return session.photoName(photo) ?? null;
}
