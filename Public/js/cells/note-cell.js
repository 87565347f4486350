/**
 * `<db-note-cell>`: plain text, shown as text (never parsed as markup). Editing swaps in a labelled textarea;
 * saving sends the changed notebook.
 */
import { h, uniqueId } from '../dom.js';

export class NoteCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {object} cell
     * @param {(change: (cell: object) => void) => void} edit applies a change to this cell and sends the notebook
     */
    attach(session, cell, edit) {
        this.text = h('p', { class: 'note-text', text: cell.text ?? '' });
        const children = [this.text];
        if (session.canEdit) {
            const id = uniqueId('note');
            const area = h('textarea', { id, rows: 3, class: 'note-editor' });
            const form = h('form', { class: 'note-form', hidden: true },
                h('label', { for: id, text: 'Note text' }), area,
                h('div', { class: 'note-actions' },
                    h('button', { type: 'submit' }, 'Done'),
                    h('button', { type: 'button', onclick: () => { form.hidden = true; this.text.hidden = false; editButton.hidden = false; } }, 'Cancel')));
            form.addEventListener('submit', (event) => {
                event.preventDefault();
                edit((draft) => { draft.text = area.value; });
            });
            const editButton = h('button', {
                type: 'button', class: 'note-edit', onclick: () => {
                    area.value = cell.text ?? '';
                    form.hidden = false;
                    this.text.hidden = true;
                    editButton.hidden = true;
                    area.focus();
                },
            }, 'Edit note');
            children.push(form, editButton);
        }
        this.replaceChildren(...children);
        return this;
    }
}

customElements.define('db-note-cell', NoteCell);
