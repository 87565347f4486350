import { dependentsOf } from '../notebook-graph.js';
import { linkOf } from '../linked-params.js';

/**
 * Parameter changes on their way to the server, as docs/protocol.md asks: changes to one cell within an
 * animation frame are merged into one `setParams` carrying only what changed, each with a rising sequence
 * number; while a slider moves (`interactive`) the cells below that nobody sees wait; a change the server
 * refuses is put back as it was.
 */
export class ParamEdits {
    /** @param {import('../notebook-session.js').NotebookSession} session */
    constructor(session) {
        this.session = session;
        /** cell id → {params, unset, previous, interactive} waiting for the next animation frame */
        this.pending = new Map();
        this.scheduled = false;
        this.persistedAt = -Infinity;
    }

    /**
     * Records a change (`value` undefined: leave the parameter out again) and sends it on the next frame. The
     * server moves the members of its link with it and says to what (the reply's `linked`, `followLinks`).
     */
    set(cellId, name, value, { interactive }) {
        const session = this.session;
        const cell = session.cell(cellId);
        if (!cell) return;
        const waiting = this.pending.get(cellId);
        const pending = waiting ?? { params: {}, unset: new Set(), previous: {}, interactive: true };
        if (!(name in pending.previous)) pending.previous[name] = cell.params?.[name];
        const params = { ...(cell.params ?? {}) };
        if (value === undefined) {
            // Left out again: the server picks the value from the photo (or uses the default).
            delete params[name];
            delete pending.params[name];
            pending.unset.add(name);
        } else {
            params[name] = value;
            pending.params[name] = value;
            pending.unset.delete(name);
        }
        cell.params = params;
        pending.interactive = interactive;
        this.pending.set(cellId, pending);
        // Once per batch, not per input event: the previews this change will render wait for it.
        if (!waiting) for (const id of this.rendered(cellId, [name])) session.previews.awaiting(id, 'pending');
        session.setEdited(true);
        this.schedule();
    }

    /**
     * The server's values for the link members a change moved: put into the page's copy of their cells and told
     * to their controls (`linkedvalue`); `null` leaves a member out again. Stored at once after a drag's last change.
     */
    followLinks(linked, interactive) {
        const session = this.session;
        for (const { cell: cellId, name, value } of linked ?? []) {
            const cell = session.cell(cellId);
            if (!cell) continue;
            const params = { ...(cell.params ?? {}) };
            if (value === null || value === undefined) delete params[name];
            else params[name] = value;
            cell.params = params;
            session.dispatchEvent(new CustomEvent('linkedvalue', { detail: { cell: cellId, name, value: value ?? undefined } }));
        }
        if ((linked ?? []).length > 0 && !interactive) session.persist();
    }

    schedule() {
        if (this.scheduled) return;
        this.scheduled = true;
        requestAnimationFrame(() => {
            this.scheduled = false;
            this.flush();
        });
    }

    /** Sends what waits: one `setParams` per cell. */
    flush() {
        const session = this.session;
        const batches = [...this.pending.entries()];
        this.pending.clear();
        for (const [cellId, { params, unset, previous, interactive }] of batches) {
            const seq = session.nextSeq();
            session.sentAt.set(seq, performance.now());
            const message = { cell: cellId, params, seq, interactive };
            if (unset.size > 0) message.unset = [...unset];
            // Cells scrolled away wait while the slider moves; the drag's last change names them too, so the
            // server renders them after every picture in view (this page's and other people's).
            const offscreen = this.scrolledAwayBelow(cellId);
            if (offscreen.length > 0) message.offscreen = offscreen;
            const waiting = interactive ? offscreen : [];
            // Cells left waiting stay 'pending' until the drag's last change renders them. The reply lists the
            // renders the server scheduled (by its graph): one the page did not expect is awaited from then on.
            for (const id of this.rendered(cellId, [...Object.keys(params), ...unset])) if (!waiting.includes(id)) session.previews.awaiting(id, seq);
            session.socket.request('setParams', message)
                .then((result) => {
                    for (const render of result?.renders ?? []) session.previews.awaitingIfOlder(render.cell, render.seq);
                    this.followLinks(result?.linked, interactive);
                    session.dispatchEvent(new CustomEvent('cellOk', { detail: { cell: cellId } }));
                })
                .catch((error) => this.refuse(cellId, seq, previous, error));
        }
        // Mid-drag the tab is written once a second, not every frame (a whole notebook serialised each time): the
        // drag's last change is not interactive and stores it, and leaving the page stores at once.
        const now = performance.now();
        if (!batches.some(([, batch]) => batch.interactive) || now - this.persistedAt >= 1000) {
            this.persistedAt = now;
            session.persist();
        }
    }

    /**
     * The previews a change to `cellId` renders: the cell's, those of the cells its parameters' links move with
     * it, and those of the cells below any of them.
     */
    rendered(cellId, names) {
        const { notebook, graph, previews } = this.session;
        const linked = names.flatMap((name) => linkOf(notebook, cellId, name)?.others.map((other) => other.cell) ?? []);
        const moved = [cellId, ...linked];
        const all = new Set([...moved, ...moved.flatMap((id) => dependentsOf(graph, id))]);
        return [...all].filter((id) => previews.has(id));
    }

    /**
     * Cells below `cellId` that nobody sees now (every preview of them scrolled away): while a slider moves they
     * wait, and the drag's last change renders them. The last cell of the chain, the recipe's result, follows
     * the slider wherever it is.
     */
    scrolledAwayBelow(cellId) {
        const below = dependentsOf(this.session.graph, cellId);
        const result = below.at(-1);
        return below.filter((id) => id !== result && !this.session.previews.seen(id));
    }

    /**
     * The server refused a change and kept its values: put the previous ones back here too, and tell the
     * controls (`paramError`), which say why beside themselves.
     */
    refuse(cellId, seq, previous, error) {
        const session = this.session;
        if (error.code !== 'bad_request' || error.cell !== cellId) return session.failCell(cellId, seq, error);
        const cell = session.cell(cellId);
        if (cell) {
            const params = { ...(cell.params ?? {}) };
            for (const [name, value] of Object.entries(previous)) {
                if (value === undefined) delete params[name];
                else params[name] = value;
            }
            cell.params = params;
            session.persist();
        }
        session.dispatchEvent(new CustomEvent('paramError', { detail: { cell: cellId, restored: previous, message: error.message } }));
    }
}
