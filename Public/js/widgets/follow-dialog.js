/**
 * "Follow on another device": the session's view-only watch link (`?watch=<session id>`) as text to copy and
 * as a QR code drawn here, for a phone's camera. The session id is public: taking the session back as its
 * editor needs the resume key only this tab keeps, so the link can only ever watch.
 */
import { h } from '../dom.js';
import { copyText } from '../clipboard.js';
import { drawQR, encodeQR } from '../qr-code.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The address that watches `session` view-only. */
export function watchLink(session) {
    const url = new URL(location.pathname, location.origin);
    url.searchParams.set('watch', session.sessionId);
    return url.href;
}

/** Opens the dialog; resolves when it closes. */
export function showFollowDialog(session) {
    const link = watchLink(session);
    const canvas = h('canvas', { class: 'follow-qr', role: 'img', 'aria-label': `QR code of the watch link ${link}` });
    drawQR(canvas, encodeQR(link), 6);
    const field = h('input', { type: 'text', class: 'follow-link', readonly: true, 'aria-label': 'Watch link', value: link });
    const copied = h('span', { class: 'follow-copied', role: 'status' });
    const close = h('button', { type: 'button', class: 'follow-close' }, 'Close');
    const dialog = h('dialog', { class: 'follow-dialog', 'aria-labelledby': 'follow-title' },
        h('h2', { id: 'follow-title', text: 'Follow on another device' }),
        h('p', { text: 'Scan the code or open the link on a phone or tablet: it shows this notebook live, following every change made here. It can only watch, never edit.' }),
        LOOPBACK.has(location.hostname)
            ? h('p', { class: 'follow-warning', text: `This page is open at ${location.host}, which only this computer reaches. For a phone on the same network, start the studio with HOST=0.0.0.0 (and a token), and open this page at the computer's network address.` })
            : null,
        canvas,
        h('div', { class: 'follow-row' }, field,
            h('button', { type: 'button', class: 'follow-copy', onclick: async () => {
                copied.textContent = (await copyText(link, field)) ? 'Copied.' : 'Select the link and copy it.';
            } }, 'Copy link'), copied),
        h('div', { class: 'ask-answers' }, close));
    document.body.append(dialog);
    return new Promise((resolve) => {
        close.addEventListener('click', () => dialog.close());
        dialog.addEventListener('close', () => {
            dialog.remove();
            resolve();
        });
        dialog.showModal();
        close.focus();
    });
}
