/**
 * `<db-draft>`: the line that offers an unsaved draft of this notebook, left by another tab or an earlier run
 * of the browser (`session/drafts.js`): "You have an unsaved draft from <time>: restore / discard".
 */
import { h } from './dom.js';

export class DraftBanner extends HTMLElement {
    /** @param {import('./notebook-session.js').NotebookSession} session */
    attach(session) {
        this.session = session;
        this.hidden = true;
        this.setAttribute('role', 'region');
        this.setAttribute('aria-label', 'Unsaved draft');
        session.addEventListener('draft', (event) => this.offer(event.detail.draft));
        return this;
    }

    offer(draft) {
        const when = new Date(draft.savedAt);
        const text = `You have an unsaved draft of this notebook from ${when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`
            + ` (${draft.notebook.cells?.length ?? 0} cells).`;
        const restore = h('button', { type: 'button', class: 'draft-restore', onclick: () => this.restore(draft) }, 'Restore it');
        const discard = h('button', { type: 'button', class: 'draft-discard', onclick: () => this.discard() }, 'Discard it');
        this.replaceChildren(h('p', { class: 'draft-text', text }), restore, discard);
        this.hidden = false;
    }

    async restore(draft) {
        this.close();
        try {
            await this.session.restoreDraft(draft);
            this.session.status('Draft restored. Undo (Ctrl+Z) goes back to the notebook as it opened.', 'ok');
        } catch (error) {
            this.session.status(`The draft could not be restored: ${error.message}`, 'error');
        }
    }

    discard() {
        this.session.draftPending = false;
        this.session.drafts.discard(this.session.draftKey);
        this.session.keepDraft();
        this.close();
        this.session.status('Draft discarded.', 'ok');
    }

    close() {
        this.hidden = true;
        this.replaceChildren();
    }
}

customElements.define('db-draft', DraftBanner);
