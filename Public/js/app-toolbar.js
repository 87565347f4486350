/**
 * `<db-toolbar>`: the bar above the notebook: open a bundled notebook, run all, save & share (one click
 * saves an immutable version, points the address bar at `/n/<id>` and copies that URL), presenter mode,
 * and the connection status, which says when the connection is lost and when it is back.
 */
import { h, uniqueId } from './dom.js';
import { ask } from './widgets/ask-dialog.js';
import { copyText } from './clipboard.js';
import { showFollowDialog } from './widgets/follow-dialog.js';

export class AppToolbar extends HTMLElement {
    /**
     * @param {import('./notebook-session.js').NotebookSession} session
     * @param {import('./presenter.js').Presenter} presenter
     */
    attach(session, presenter) {
        this.session = session;
        const pickerId = uniqueId('notebooks');
        this.picker = h('select', { id: pickerId });
        const open = h('button', {
            type: 'button', onclick: () => { if (this.picker.value) location.assign(`/n/${encodeURIComponent(this.picker.value)}`); },
        }, 'Open');
        // Undo and redo: their titles say what they would undo or redo.
        this.undoButton = h('button', { type: 'button', class: 'undo', disabled: true, onclick: () => session.history.undo() }, '↶', h('span', { class: 'long-text', text: ' Undo' }));
        this.redoButton = h('button', { type: 'button', class: 'redo', disabled: true, onclick: () => session.history.redo() }, '↷', h('span', { class: 'long-text', text: ' Redo' }));
        session.history.addEventListener('change', () => this.showHistory());
        this.showHistory();
        this.runAll = h('button', { type: 'button', class: 'run-all', onclick: () => session.runAll() }, 'Run all');
        this.saveButton = h('button', { type: 'button', class: 'save-share', onclick: () => this.save() },
            'Save', h('span', { class: 'long-text', text: ' & copy link' }));
        const linkId = uniqueId('share');
        this.link = h('input', { id: linkId, class: 'share-link', type: 'text', readonly: true, size: 28, placeholder: 'not saved yet' });
        this.saveState = h('span', { class: 'save-state' });
        this.presenterButton = h('button', {
            type: 'button', class: 'presenter-toggle', 'aria-pressed': 'false', title: 'Presenter mode (P)',
            onclick: () => presenter.toggle(),
        }, 'Present');
        presenter.addEventListener('change', (event) => this.presenterButton.setAttribute('aria-pressed', String(event.detail.active)));
        this.followButton = h('button', {
            type: 'button', class: 'follow-open', title: 'Watch this notebook live on a phone or tablet', hidden: true,
            onclick: () => showFollowDialog(session),
        }, 'Follow', h('span', { class: 'long-text', text: ' on a phone' }));
        this.connection = h('p', { class: 'connection', role: 'status', 'aria-live': 'polite', text: 'Connecting…' });
        // On a phone the bar has no room for the link field: after Save this line says it worked and holds the link.
        this.savedNotice = h('p', { class: 'saved-notice', role: 'status', hidden: true });
        this.readOnlyNote = h('p', {
            class: 'read-only-note', hidden: true,
            text: 'Read-only link: sign in to edit or fork. Ask whoever runs this studio for its link with the access token.',
        });
        this.replaceChildren(
            h('div', { class: 'toolbar-row' },
                h('span', { class: 'brand', text: 'Depthbook' }),
                h('div', { class: 'field' }, h('label', { for: pickerId, text: 'Notebook' }), this.picker, open),
                this.editButtons = h('span', { class: 'edit-buttons' }, this.undoButton, this.redoButton),
                this.runAll,
                this.shareField = h('div', { class: 'field share-field' }, this.saveButton, h('label', { for: linkId, class: 'visually-hidden', text: 'Share link' }), this.link),
                this.saveState,
                this.revertButton = h('button', { type: 'button', class: 'revert', hidden: true, onclick: () => this.revert() }, 'Revert'),
                this.followButton,
                this.presenterButton),
            this.savedNotice,
            this.connection,
            this.readOnlyNote,
        );
        session.addEventListener('catalogs', () => this.fillPicker());
        session.addEventListener('status', (event) => this.showStatus(event.detail));
        session.addEventListener('edited', () => this.showSaveState());
        session.addEventListener('notebook', () => this.showSaveState());
        return this;
    }

    showHistory() {
        const { history } = this.session;
        const mac = /Mac|iPhone|iPad/.test(navigator.platform);
        this.undoButton.disabled = !history.canUndo;
        this.redoButton.disabled = !history.canRedo;
        this.undoButton.title = history.undoLabel ? `Undo ${history.undoLabel} (${mac ? '⌘Z' : 'Ctrl+Z'})` : 'Nothing to undo';
        this.redoButton.title = history.redoLabel ? `Redo ${history.redoLabel} (${mac ? '⇧⌘Z' : 'Shift+Ctrl+Z'})` : 'Nothing to redo';
        this.undoButton.setAttribute('aria-label', history.undoLabel ? `Undo ${history.undoLabel}` : 'Undo');
        this.redoButton.setAttribute('aria-label', history.redoLabel ? `Redo ${history.redoLabel}` : 'Redo');
    }

    fillPicker() {
        this.picker.replaceChildren(...this.session.bundled.map((notebook) => h('option', { value: notebook.name, text: notebook.title || notebook.name })));
        const current = this.session.notebook?.name ?? this.session.target;
        if (this.session.bundled.some((notebook) => notebook.name === current)) this.picker.value = current;
    }

    /** The status line; while the connection is lost it counts down to the next try and offers one now. */
    showStatus({ text, tone, retryAt }) {
        clearInterval(this.countdown);
        this.connection.dataset.tone = tone ?? '';
        if (!retryAt) {
            this.connection.textContent = text;
            return;
        }
        const retry = h('button', { type: 'button', class: 'retry-now', onclick: () => this.session.retryNow() }, 'Retry now');
        const left = h('span', { class: 'retry-countdown' });
        const tick = () => {
            const seconds = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
            left.textContent = seconds > 0 ? ` Reconnecting in ${seconds} s… ` : ' Reconnecting… ';
        };
        tick();
        this.countdown = setInterval(tick, 250);
        this.connection.replaceChildren(text, left, retry);
    }

    showSaveState() {
        const { shared, edited, canEdit } = this.session;
        // A watcher may not render or save (the server refuses): it is not offered either.
        this.runAll.hidden = !canEdit;
        this.editButtons.hidden = !canEdit;
        this.shareField.hidden = !canEdit;
        this.saveState.hidden = !canEdit;
        this.readOnlyNote.hidden = this.session.access !== 'read';
        this.followButton.hidden = !(this.session.sessionId && this.session.role === 'edit');
        if (shared) this.link.value = new URL(`/n/${shared}`, location.origin).href;
        if (shared && edited) this.saveState.textContent = 'Edited: saving makes a new link; the shared one stays as it was.';
        else if (shared) this.saveState.textContent = 'Saved.';
        else if (edited) this.saveState.textContent = 'Unsaved.';
        else this.saveState.textContent = '';
        this.saveState.title = edited && !shared ? 'Unsaved changes: Save makes a link to them; Revert goes back.' : '';
        // An edited notebook (this tab's, or a session resumed with its edits) can go back to the original.
        this.revertButton.hidden = !(canEdit && edited);
        this.revertButton.title = shared ? 'Back to the saved version of this link' : 'Back to the notebook as it ships';
        this.fillPicker();
    }

    async revert() {
        const answer = await ask({
            title: 'Revert to the original?',
            message: this.session.shared
                ? 'Your changes to this notebook go, and the saved version of this link comes back. The photo you chose stays.'
                : 'Your changes to this notebook go, and it comes back as it ships with Depthbook. The photo you chose stays.',
            answers: [{ value: 'revert', label: 'Revert' }],
        });
        if (answer !== 'revert') return;
        try {
            await this.session.revert();
        } catch (error) {
            this.session.status(`Reverting failed: ${error.message}`, 'error');
        }
    }

    /** The saved link in words and as a link, with the system's share sheet where the browser has one. */
    showSavedNotice(url, copied) {
        const share = typeof navigator.share === 'function'
            ? h('button', { type: 'button', class: 'share-sheet', onclick: () => navigator.share({ title: document.title, url }).catch(() => {}) }, 'Share…')
            : null;
        this.savedNotice.replaceChildren(
            h('span', { text: copied ? 'Saved, link copied: ' : 'Saved: ' }),
            h('a', { href: url, class: 'saved-link', text: url }),
            share ? ' ' : '', share ?? '');
        this.savedNotice.hidden = false;
    }

    async save() {
        this.saveButton.disabled = true;
        try {
            const url = await this.session.save();
            this.link.value = url;
            const copied = await copyText(url, this.link);
            this.saveState.textContent = copied ? 'Saved; link copied.' : 'Saved; copy the link beside the button.';
            this.showSavedNotice(url, copied);
            if (this.link.checkVisibility()) {
                this.link.focus();
                this.link.select();
            }
        } catch (error) {
            this.saveState.textContent = `Saving failed: ${error.message}`;
        } finally {
            this.saveButton.disabled = false;
        }
    }
}

customElements.define('db-toolbar', AppToolbar);
