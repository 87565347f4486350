/**
 * Small DOM builders. Every string from the server or the user goes in through `textContent` or an
 * attribute, never through `innerHTML`, so nothing a notebook or a photo carries can become markup.
 */

/**
 * Creates an element.
 * @param {string} tag element name
 * @param {Object<string, any>} [props] attributes; `class`, `text` (textContent), `on<Event>` (listeners)
 *   and `dataset` are handled specially; `false`/`null`/`undefined` values are skipped.
 * @param {...(Node|string|null|undefined|false)} children nodes or plain text
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
    const element = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
        if (value === false || value === null || value === undefined) continue;
        if (key === 'text') element.textContent = String(value);
        else if (key === 'class') element.className = value;
        else if (key === 'dataset') Object.assign(element.dataset, value);
        else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
        else if (value === true) element.setAttribute(key, '');
        else element.setAttribute(key, String(value));
    }
    append(element, ...children);
    return element;
}

/** Appends nodes or text (as text nodes) to a parent, skipping empty entries. */
export function append(parent, ...children) {
    for (const child of children.flat()) {
        if (child === null || child === undefined || child === false) continue;
        parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return parent;
}

/** Replaces every child of `parent` with `children`. */
export function replaceChildren(parent, ...children) {
    parent.replaceChildren();
    return append(parent, ...children);
}

/** A page-unique id for label/control pairs. */
let counter = 0;
export function uniqueId(prefix) {
    counter += 1;
    return `${prefix}-${counter}`;
}

/** Formats a byte count for people: 912 B, 14.2 KB, 3.1 MB. */
export function formatBytes(bytes) {
    if (!Number.isFinite(bytes)) return '';
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
