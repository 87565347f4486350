/**
 * Files dropped anywhere on the page go to the photo intake. While something is dragged over the window a
 * full-page hint says what may be dropped; a drop that is not files (text, a link) is left to the browser.
 */
import { h } from './dom.js';

export function installFileDrop(intake, session) {
    const hint = h('div', { class: 'drop-hint', hidden: true, 'aria-hidden': 'true' },
        h('p', { text: 'Drop a photo, a depth map or a Depthbook export' }));
    document.body.append(hint);
    let depth = 0;
    const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
    document.addEventListener('dragenter', (event) => {
        if (!carriesFiles(event) || !session.canEdit) return;
        depth += 1;
        hint.hidden = false;
    });
    document.addEventListener('dragleave', () => {
        depth = Math.max(0, depth - 1);
        if (depth === 0) hint.hidden = true;
    });
    document.addEventListener('dragover', (event) => {
        if (carriesFiles(event) && session.canEdit) event.preventDefault();
    });
    document.addEventListener('drop', async (event) => {
        depth = 0;
        hint.hidden = true;
        const files = [...(event.dataTransfer?.files ?? [])];
        if (files.length === 0 || !session.canEdit) return;
        event.preventDefault();
        session.status(`Uploading ${files.map((file) => file.name).join(' and ')}…`, 'busy');
        try {
            session.status(await intake.take(files), 'ok');
        } catch (error) {
            session.status(`That file could not be used: ${error.message}`, 'error');
        }
    });
}
