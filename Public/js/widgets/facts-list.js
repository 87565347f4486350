/**
 * `<db-facts>`: photo facts (what `depthbook inspect --json` prints) as a nested definition list. Every key
 * and value goes in as text; long arrays are summarised rather than dumped.
 */
import { h } from '../dom.js';

const MAX_DEPTH = 4;
const MAX_ITEMS = 24;

export class FactsList extends HTMLElement {
    attach(facts) {
        this.replaceChildren(describe(facts, 0));
        return this;
    }
}

function describe(value, depth) {
    if (value === null || typeof value !== 'object') return h('span', { class: 'fact-value', text: formatScalar(value) });
    if (depth >= MAX_DEPTH) return h('span', { class: 'fact-value', text: Array.isArray(value) ? `[${value.length} items]` : '{…}' });
    if (Array.isArray(value)) {
        if (value.every((item) => item === null || typeof item !== 'object')) {
            const shown = value.slice(0, MAX_ITEMS).map(formatScalar).join(', ');
            return h('span', { class: 'fact-value', text: value.length > MAX_ITEMS ? `${shown}, … (${value.length} in all)` : `[${shown}]` });
        }
        return h('ol', { class: 'fact-list' }, ...value.slice(0, MAX_ITEMS).map((item) => h('li', {}, describe(item, depth + 1))));
    }
    const list = h('dl', { class: 'facts' });
    for (const [key, item] of Object.entries(value)) {
        list.append(h('dt', { text: key }), h('dd', {}, describe(item, depth + 1)));
    }
    return list;
}

function formatScalar(value) {
    if (typeof value === 'number' && !Number.isInteger(value)) return String(Math.round(value * 10000) / 10000);
    return String(value);
}

customElements.define('db-facts', FactsList);
