/**
 * What comes from the server unasked: frames, routed to the previews showing them (the newest kept per
 * reference), crops to whoever waits for them, photo notes said once; render errors; a plane the photo gained
 * after it opened; and, for a watcher, the editor's notebook as it changes.
 */
import { ProtocolError } from '../studio-socket.js';
import { structureOf } from '../notebook-graph.js';

export function receiveFrame(session, frame) {
    const { header } = frame;
    const key = header.cell;
    const sent = session.sentAt.get(header.seq);
    const latencyMs = sent === undefined ? null : frame.receivedAt - sent;
    if (!header.coarse) forgetSentBefore(session, header.seq);
    if (header.kind === 'crop') {
        const waiter = session.cropWaiters.get(header.seq);
        session.cropWaiters.delete(header.seq);
        waiter?.resolve(frame);
        return;
    }
    session.previews.show(key, frame);
    session.dispatchEvent(new CustomEvent('frame', { detail: { frame, key, latencyMs } }));
    for (const note of header.notes ?? []) {
        if (session.photoNotes.has(note)) continue;
        session.photoNotes.add(note);
        session.dispatchEvent(new CustomEvent('photoNote', { detail: { note } }));
    }
    // A cell's histogram (and its marker) changes exactly when the cell renders anew.
    if (!header.coarse) session.histograms.refresh(key);
}

function forgetSentBefore(session, seq) {
    for (const sentSeq of session.sentAt.keys()) if (sentSeq < seq - 512) session.sentAt.delete(sentSeq);
}

export function receiveEvent(session, message) {
    if (message.event === 'cellError') {
        const waiter = session.cropWaiters.get(message.seq);
        if (waiter) {
            session.cropWaiters.delete(message.seq);
            waiter.reject(new ProtocolError('render', message.message));
        }
        // A failed crop is reported in the zoom dialog; the cell's own output is fine.
        if (message.kind === 'crop' || waiter) return;
        session.dispatchEvent(new CustomEvent('cellError', { detail: { cell: String(message.cell), seq: message.seq, message: String(message.message ?? 'the render failed') } }));
    } else if (message.event === 'photo' && message.photo) {
        // The photo gained a plane made after it opened (the learned person matte): the photo cell shows it and
        // every cell renders again on it. The frames shown meanwhile stay until their successors arrive.
        session.photo = message.photo;
        session.dispatchEvent(new CustomEvent('photo'));
        session.runAll();
    } else if (message.event === 'notebook' && message.notebook) {
        // Sent to watchers when the editor changes the notebook or the photo; the frames come by themselves.
        const before = structureOf(session.notebook, session.photo);
        session.notebook = message.notebook;
        session.graph = message.graph ?? null;
        if (message.photo) {
            session.photo = message.photo;
            session.forgetPhotoState();
        }
        session.dispatchEvent(new CustomEvent('notebook'));
        if (structureOf(session.notebook, session.photo) !== before) session.runAll();
    }
}
