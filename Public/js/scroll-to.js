/**
 * Scrolls an element to the top of its scroller and keeps it there while the page settles. Cells far from
 * view skip layout (`content-visibility: auto`, a 640-px placeholder each) and pictures above it arrive a
 * little later: the first scroll lands right, and a few frames on the target has moved by the difference
 * (160 px and more were seen, leaving its slider off screen). So the position is watched, and the scroll
 * repeated whenever the target drifts, for ten seconds: on a busy server the pictures above came after the
 * three seconds once allowed, and half a second of stillness came before them. The person scrolling, typing
 * or touching ends the watch at once.
 */
const LONGEST_MS = 10000;
/** Ends the watch under way: a newer scroll to another element takes over. */
let endWatch = () => {};

export function scrollToElement(element, { block = 'start' } = {}) {
    return new Promise((resolve) => {
        element.scrollIntoView({ block, behavior: 'instant' });
        const wanted = element.getBoundingClientRect().top;
        const started = performance.now();
        let stopped = false;
        const stop = () => { stopped = true; };
        endWatch();
        endWatch = stop;
        const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
        for (const type of inputs) window.addEventListener(type, stop, { once: true, passive: true, capture: true });
        const watch = () => {
            const now = performance.now();
            const top = element.getBoundingClientRect().top;
            if (Math.abs(top - wanted) > 1) element.scrollIntoView({ block, behavior: 'instant' });
            if (stopped || now - started >= LONGEST_MS || !element.isConnected) {
                for (const type of inputs) window.removeEventListener(type, stop, { capture: true });
                resolve(element.getBoundingClientRect().top);
            } else {
                requestAnimationFrame(watch);
            }
        };
        requestAnimationFrame(watch);
    });
}
