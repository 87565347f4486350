/**
 * Ctrl+Z / Cmd+Z undoes the last notebook edit and Shift+Ctrl+Z / Cmd+Shift+Z (or Ctrl+Y) redoes it, wherever
 * the focus is, a parameter's number field included: there the browser's own undo would only change the
 * field's text, leaving the slider and the picture behind. A note's text box and other text fields keep the
 * browser's undo for their text.
 * @param {import('./session/history.js').EditHistory} history
 */
export function installEditKeys(history) {
    document.addEventListener('keydown', (event) => {
        if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
        const key = event.key.toLowerCase();
        const redo = (key === 'z' && event.shiftKey) || (key === 'y' && !event.shiftKey && event.ctrlKey);
        if (!(key === 'z' || redo)) return;
        const target = event.target;
        const textField = target instanceof HTMLTextAreaElement || target.isContentEditable
            || (target instanceof HTMLInputElement && ['text', 'search', 'url', 'email', 'password', 'tel'].includes(target.type));
        if (textField || target.closest?.('dialog')) return;
        event.preventDefault();
        if (redo) history.redo();
        else history.undo();
    }, { capture: true });
}
