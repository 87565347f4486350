/**
 * A labelled select of references (photo planes and earlier cells) for a view's input or a step's input
 * slot. Used by view and step cells.
 */
import { h, uniqueId } from '../dom.js';

/**
 * @param {string} label
 * @param {string[]} choices references to offer
 * @param {string|undefined} current the reference the cell reads now (kept even if not among the choices)
 * @param {boolean} optional whether "none" is allowed
 * @param {(reference: string|null) => void} onChoose
 * @param {boolean} disabled
 * @param {(reference: string) => string} labelOf what an option says (its value stays the reference)
 */
export function referencePicker(label, choices, current, optional, onChoose, disabled = false, labelOf = String) {
    const id = uniqueId('input');
    const options = [...choices];
    if (current && !options.includes(current)) options.unshift(current);
    const select = h('select', { id, class: 'reference-select', disabled },
        optional ? h('option', { value: '', text: '(none)' }) : null,
        ...options.map((reference) => h('option', { value: reference, text: labelOf(reference) })));
    select.value = current ?? '';
    select.addEventListener('change', () => onChoose(select.value === '' ? null : select.value));
    return h('div', { class: 'field reference-field' }, h('label', { for: id, text: label }), select);
}
