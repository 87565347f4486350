/**
 * The connection's state for people, as the toolbar shows it: while lost, `retryAt` lets it count down and
 * offer a retry. Returns the status to show, or null when the state says nothing new.
 */
export function connectionStatus({ state, retryAt }) {
    if (state === 'connecting') return { text: 'Connecting…', tone: 'busy' };
    if (state === 'reconnecting') return { text: 'Reconnecting…', tone: 'busy' };
    if (state === 'lost') return { text: 'Connection lost.', tone: 'error', extra: { retryAt } };
    return null;
}
