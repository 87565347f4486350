/**
 * The session's hello and what follows it: resume the tab's session (its id and resume key in the tab's
 * storage), watch one view-only (`?watch=<id>`), or open the notebook of the address; a notebook this tab
 * stored that the server lacks (a change it never got before a refresh, or a session that ended) is pushed
 * back; and a fresh tab is offered the unsaved draft another tab, or an earlier run of the browser, left.
 */
import { planeNames, stableStringify } from '../notebook-graph.js';

/**
 * @param {import('../notebook-session.js').NotebookSession} session
 * @param {boolean} reconnected
 */
export async function introduce(session, reconnected) {
    const { store, socket } = session;
    const stored = store.load();
    const samePage = stored.path === location.pathname;
    // The tab's session is reused even for another notebook, rather than leaving one behind.
    const resumeId = session.sessionId ?? stored.session;
    // The session's id is public (watch links carry it); only its resume key makes this page its editor again.
    const resumeKey = session.resumeKey ?? stored.resume;
    const watch = new URLSearchParams(location.search).get('watch');
    try {
        const fields = { protocol: 1 };
        if (watch) fields.watch = watch;
        else if (resumeId && resumeKey) Object.assign(fields, { session: resumeId, resume: resumeKey });
        const hello = await socket.request('hello', fields);
        // At once, before any other message is read: the export's news may follow the hello's reply directly.
        const resumedExport = hello.export ? { ...hello.export, ...socket.adopt(hello.export.request) } : null;
        session.sessionId = hello.session;
        session.resumeKey = hello.resume ?? null;
        session.role = hello.role ?? 'edit';
        session.access = hello.access ?? 'full';
        session.limits = hello.limits;
        session.planeNames = planeNames(hello.planes);
        if (!watch) store.save({ session: hello.session, resume: hello.resume, path: location.pathname });
        await session.loadCatalogs();
        if (session.access === 'read' && !watch) {
            // Without the token the page may open and look: the notebook as saved, never local edits.
            await session.open(session.target);
            session.status('Connected, read-only.', 'ok');
            return;
        }
        if (watch) {
            if (!hello.notebook) throw new Error('the watched session has no notebook open yet');
            session.adopt(hello.notebook, hello.photo ?? null, hello.shared ?? null, false, hello.graph);
            session.runAll();
            session.status('Watching view-only.', 'ok');
            return;
        }
        const local = session.notebook ?? (samePage ? stored.notebook : null);
        const localPhoto = session.photo ?? (samePage ? stored.photo : null);
        if (hello.resumed && (session.notebook || samePage) && (hello.notebook || local)) {
            const wasEdited = session.notebook ? session.edited : Boolean(stored.edited);
            const first = !session.notebook;
            session.adopt(hello.notebook ?? local, hello.photo ?? localPhoto, hello.shared ?? (samePage ? stored.shared : null) ?? null, wasEdited,
                hello.notebook ? hello.graph : null);
            if (first) session.history.reset();
            if (local && stableStringify(local) !== stableStringify(hello.notebook)) await session.pushNotebook(local);
            else session.runAll();
            session.status(reconnected ? 'Reconnected: the session was resumed.' : 'Session resumed.', 'ok');
            // An export the page asked for before the connection dropped runs again: its bar follows it.
            if (resumedExport) session.dispatchEvent(new CustomEvent('exportresumed', { detail: resumedExport }));
            return;
        }
        await session.open(session.target);
        if (local) {
            await restore(session, local, stored);
            session.status(reconnected ? 'Reconnected: the old session had ended, so a new one was started and your notebook restored.' : 'Notebook restored.', 'ok');
        } else {
            session.status(reconnected ? 'Reconnected.' : 'Connected.', 'ok');
            offerDraft(session);
        }
    } catch (error) {
        session.status(`Could not open the notebook: ${error.message}`, 'error');
    }
}

/** Puts a notebook edited before a refresh or a lost session back on a fresh server session. */
async function restore(session, local, stored) {
    if (stableStringify(local.photo) !== stableStringify(session.notebook.photo)) {
        const opened = await session.socket.request('openPhoto', { photo: local.photo });
        session.photo = opened.photo;
        session.forgetPhotoState();
    }
    session.shared = stored.shared ?? session.shared;
    await session.pushNotebook(local);
    session.setEdited(Boolean(stored.edited));
}

/** A draft of this notebook that differs from what just opened is offered (`draft` event), never applied unasked. */
function offerDraft(session) {
    const draft = session.drafts.load(session.draftKey);
    if (!draft) return;
    if (stableStringify(draft.notebook) === stableStringify(session.notebook)) {
        session.drafts.discard(session.draftKey);
        return;
    }
    session.draftPending = true;
    session.dispatchEvent(new CustomEvent('draft', { detail: { draft } }));
}
