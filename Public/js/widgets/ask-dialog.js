/**
 * A question in a modal `<dialog>`: a title, a sentence and a button per answer. Resolves with the chosen
 * answer's value, or null when dismissed (Escape, or the close button). Each button is a real button, so the
 * keyboard and screen readers reach them; the first answer has the focus.
 */
import { h } from '../dom.js';

/**
 * @param {{title: string, message: string, answers: {value: string, label: string}[]}} question
 * @returns {Promise<string|null>}
 */
export function ask({ title, message, answers }) {
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
        row.querySelector('button')?.focus();
    });
}
