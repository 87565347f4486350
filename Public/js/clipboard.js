/** Copies through the async clipboard, or through a selected field where that is refused (plain http, older browsers). */
export async function copyText(text, field) {
    try {
        await navigator.clipboard.writeText(text);
        return true;
    } catch {
        field.focus();
        field.select();
        try {
            return document.execCommand('copy');
        } catch {
            return false;
        }
    }
}
