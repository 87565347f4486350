/**
 * A question in a modal `<dialog>`: a title, a sentence and a button per answer. Resolves with the chosen
 * answer's value, or null when dismissed (Escape, or the close button). Each button is a real button, so the
 * keyboard and screen readers reach them; the first answer has the focus.
 */
import { h } from '../dom.js';

/**
 * @param {{title: string, message: string, answers: {value: string, label: string}[], file?: {label: string, accept: string}}} question
 *   `file`: a file chooser too; choosing a file answers with the File
 * @returns {Promise<string|File|null>}
 */
export function ask({ title, message, answers, file = null }) {
    const dialog = h('dialog', { class: 'ask-dialog', 'aria-labelledby': 'ask-title' },
        h('h2', { id: 'ask-title', text: title }),
        h('p', { text: message }));
    const row = h('div', { class: 'ask-answers' });
    return new Promise((resolve) => {
        const finish = (value) => {
            dialog.close();
            dialog.remove();
            resolve(value);
        };
        if (file) {
            const input = h('input', { type: 'file', id: 'ask-file', class: 'ask-file', accept: file.accept });
            input.addEventListener('change', () => { if (input.files?.[0]) finish(input.files[0]); });
            dialog.append(h('p', { class: 'field ask-file-field' }, h('label', { for: 'ask-file', text: file.label }), input));
        }
        for (const answer of answers) {
            row.append(h('button', { type: 'button', dataset: { answer: answer.value }, onclick: () => finish(answer.value) }, answer.label));
        }
        row.append(h('button', { type: 'button', class: 'ask-cancel', dataset: { answer: '' }, onclick: () => finish(null) }, 'Cancel'));
        dialog.append(row);
        dialog.addEventListener('cancel', (event) => {
            event.preventDefault();
            finish(null);
        });
        document.body.append(dialog);
        dialog.showModal();
        // With a file to choose, that is the way forward; the answers are the alternatives.
        (dialog.querySelector('input.ask-file') ?? row.querySelector('button'))?.focus();
    });
}
