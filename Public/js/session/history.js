/**
 * Undo and redo for every edit of the notebook: parameters, cells added, removed, reordered or changed, and
 * the photo. Each step is the whole document as it was before the edit (the notebook JSON is small), so going
 * back is putting that document back (`applyNotebook`). A slider's drag, or its key presses in quick
 * succession, is one step. Events: `change` when what can be undone or redone changes.
 */
import { stableStringify } from '../notebook-graph.js';
import { applyNotebook } from './apply-notebook.js';

const LIMIT = 100;
/** Changes of one parameter closer together than this are one step (a drag, a run of arrow keys). */
const GESTURE_MS = 1500;
/** Adoptions of one typing burst further apart than this are separate steps (a person who stopped and came back). */
const TYPING_MS = 60_000;

export class EditHistory extends EventTarget {
    /** @param {import('../notebook-session.js').NotebookSession} session */
    constructor(session) {
        super();
        this.session = session;
        this.undoStack = [];
        this.redoStack = [];
        this.lastKey = null;
        this.lastAt = 0;
        this.applying = false;
        this.baseline = null;
    }

    /** A notebook was opened as it is saved or ships: nothing to undo, and this is where "unedited" is. */
    reset() {
        this.undoStack = [];
        this.redoStack = [];
        this.lastKey = null;
        this.baseline = this.session.notebook ? stableStringify(this.session.notebook) : null;
        this.changed();
    }

    /**
     * Call before an edit. A slider's drag (its `interactive` changes and the one that ends it) is one step,
     * and so is a run of arrow presses on it in quick succession; a typed value is a step of its own.
     */
    record(label, key = null, interactive = false) {
        if (!this.session.notebook || this.applying) return;
        const now = performance.now();
        const sameGesture = key !== null && key === this.lastKey
            && (this.lastInteractive || (interactive && this.gestureSlides && now - this.lastAt < GESTURE_MS));
        this.lastKey = key;
        this.lastAt = now;
        this.lastInteractive = interactive;
        if (sameGesture) {
            this.gestureSlides ||= interactive;
            return;
        }
        this.gestureSlides = interactive;
        this.undoStack.push({ notebook: structuredClone(this.session.notebook), label });
        if (this.undoStack.length > LIMIT) this.undoStack.shift();
        this.redoStack = [];
        this.changed();
    }

    /**
     * After the whole document was replaced (`before` is what it was): one step, unless it goes on with the last
     * one under the same `key` within `TYPING_MS` (a formula typed on in one visit to its field: each prefix that
     * parses is adopted, and one undo takes back the whole burst).
     */
    replaced(before, label, key = null) {
        const now = performance.now();
        const continues = key !== null && key === this.lastKey && now - this.lastAt < TYPING_MS;
        this.lastKey = key;
        this.lastAt = now;
        this.lastInteractive = false;
        if (!continues) {
            this.undoStack.push({ notebook: before, label });
            if (this.undoStack.length > LIMIT) this.undoStack.shift();
        }
        this.redoStack = [];
        this.changed();
    }

    get canUndo() {
        return this.undoStack.length > 0 && !this.applying;
    }

    get canRedo() {
        return this.redoStack.length > 0 && !this.applying;
    }

    get undoLabel() {
        return this.undoStack.at(-1)?.label ?? null;
    }

    get redoLabel() {
        return this.redoStack.at(-1)?.label ?? null;
    }

    undo() {
        return this.move(this.undoStack, this.redoStack, 'Undid');
    }

    redo() {
        return this.move(this.redoStack, this.undoStack, 'Redid');
    }

    async move(from, to, verb) {
        if (from.length === 0 || this.applying || !this.session.canEdit) return;
        const target = from.pop();
        to.push({ notebook: structuredClone(this.session.notebook), label: target.label });
        this.applying = true;
        this.lastKey = null;
        this.changed();
        try {
            await applyNotebook(this.session, target.notebook);
            // Back where the notebook opened: nothing left unsaved.
            this.session.setEdited(stableStringify(this.session.notebook) !== this.baseline);
            this.session.status(`${verb}: ${target.label}.`, 'ok');
        } catch (error) {
            to.pop();
            from.push(target);
            this.session.status(`Could not ${verb === 'Undid' ? 'undo' : 'redo'} ${target.label}: ${error.message}`, 'error');
        } finally {
            this.applying = false;
            this.changed();
        }
    }

    changed() {
        this.dispatchEvent(new CustomEvent('change'));
    }
}
