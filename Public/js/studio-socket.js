/**
 * The page's one WebSocket to `depthbook serve` (docs/protocol.md).
 *
 * - `request(type, fields)` sends a JSON request with a fresh id and resolves with the reply's `result`, or
 *   rejects with a `ProtocolError` carrying the server's code and message. Every request gets exactly one
 *   reply; if the connection drops first, the promise rejects with code `disconnected`.
 * - Binary messages are decoded into frames and dispatched as `frame` events; server events as `event`.
 * - A lost connection reconnects by itself with backoff and says so through `status` events; the owner
 *   re-introduces the session (`hello`) on each `open`.
 */
import { decodeFrame } from './frame-decoder.js';

/** An error reply from the server, or a lost connection. */
export class ProtocolError extends Error {
    /** @param {{cell?: string, parameter?: string}} [names] what a refused parameter change names */
    constructor(code, message, { cell, parameter } = {}) {
        super(message);
        this.code = code;
        this.cell = cell ?? null;
        this.parameter = parameter ?? null;
    }
}

// Never more than 2 s between tries: a server back from a restart is found within 2 s, not 5 or 6.
const BACKOFF_MS = [250, 500, 1000, 2000];

export class StudioSocket extends EventTarget {
    /** @param {string} url ws:// or wss:// URL of the `/ws` endpoint */
    constructor(url) {
        super();
        this.url = url;
        this.nextId = 1;
        this.pending = new Map();
        this.attempt = 0;
        this.socket = null;
        this.closedByPage = false;
        this.retryTimer = null;
    }

    /** The URL of `/ws` on the host that served the page. */
    static urlFor(location) {
        const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
        return `${scheme}//${location.host}/ws`;
    }

    get isOpen() {
        return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
    }

    connect() {
        this.closedByPage = false;
        clearTimeout(this.retryTimer);
        this.emitStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
        const socket = new WebSocket(this.url);
        socket.binaryType = 'arraybuffer';
        this.socket = socket;
        socket.addEventListener('open', () => {
            const wasRetry = this.attempt > 0;
            this.attempt = 0;
            this.dispatchEvent(new CustomEvent('open', { detail: { reconnected: wasRetry } }));
        });
        socket.addEventListener('message', (message) => this.receive(message.data));
        socket.addEventListener('close', () => this.lost(socket));
    }

    /** Tries again at once instead of waiting out the backoff (the page's "Retry now"). */
    retryNow() {
        if (this.isOpen || this.closedByPage) return;
        if (this.socket && this.socket.readyState === WebSocket.CONNECTING) return;
        this.connect();
    }

    /** Closes for good (no reconnect). */
    close() {
        this.closedByPage = true;
        clearTimeout(this.retryTimer);
        this.socket?.close();
    }

    /**
     * Sends one request and waits for its reply.
     * @returns {Promise<object>} the reply's `result`
     */
    request(type, fields = {}, { onProgress, onWaiting } = {}) {
        if (!this.isOpen) return Promise.reject(new ProtocolError('disconnected', 'not connected to the server'));
        const id = this.nextId++;
        const message = { ...fields, id, type };
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject, onProgress, onWaiting, sentAt: performance.now() });
            this.socket.send(JSON.stringify(message));
        });
    }

    /**
     * Waits for the reply to a request an earlier connection of this session sent (an export that `hello`
     * says runs again), under its id; later requests are numbered past it. `listen(onProgress, onWaiting)`
     * sets who hears its events.
     */
    adopt(id) {
        this.nextId = Math.max(this.nextId, id + 1);
        const entry = { sentAt: performance.now() };
        const reply = new Promise((resolve, reject) => Object.assign(entry, { resolve, reject }));
        reply.catch(() => {});  // nobody may be listening when the connection drops again
        this.pending.set(id, entry);
        return { reply, listen: (onProgress, onWaiting) => Object.assign(entry, { onProgress, onWaiting }) };
    }

    receive(data) {
        if (data instanceof ArrayBuffer) {
            let frame;
            try {
                frame = decodeFrame(data);
            } catch (error) {
                this.dispatchEvent(new CustomEvent('protocolError', { detail: error }));
                return;
            }
            frame.receivedAt = performance.now();
            this.dispatchEvent(new CustomEvent('frame', { detail: frame }));
            return;
        }
        let message;
        try {
            message = JSON.parse(data);
        } catch (error) {
            this.dispatchEvent(new CustomEvent('protocolError', { detail: error }));
            return;
        }
        if (message.type === 'reply') {
            const waiting = this.pending.get(message.id);
            if (!waiting) {
                if (message.ok === false) this.dispatchEvent(new CustomEvent('protocolError', { detail: new ProtocolError(message.error?.code ?? 'internal', message.error?.message ?? 'error') }));
                return;
            }
            this.pending.delete(message.id);
            if (message.ok) waiting.resolve(message.result ?? {});
            else waiting.reject(new ProtocolError(message.error?.code ?? 'internal', message.error?.message ?? 'the server gave no message', message.error ?? {}));
        } else if (message.type === 'event') {
            if (message.event === 'progress') this.pending.get(message.request)?.onProgress?.(message.fraction);
            if (message.event === 'waiting') this.pending.get(message.request)?.onWaiting?.(String(message.reason ?? ''));
            this.dispatchEvent(new CustomEvent('event', { detail: message }));
        }
    }

    lost(socket) {
        if (socket !== this.socket) return;
        for (const waiting of this.pending.values()) {
            waiting.reject(new ProtocolError('disconnected', 'the connection was lost before the reply'));
        }
        this.pending.clear();
        if (this.closedByPage) {
            this.emitStatus('closed');
            return;
        }
        const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
        this.attempt += 1;
        this.emitStatus('lost', { retryInMs: delay, retryAt: Date.now() + delay, attempt: this.attempt });
        this.retryTimer = setTimeout(() => this.connect(), delay);
    }

    emitStatus(state, extra = {}) {
        this.dispatchEvent(new CustomEvent('status', { detail: { state, ...extra } }));
    }
}
