/**
 * Scrolls an element to the top of its scroller and keeps it there while the page settles. Cells far from
 * view skip layout (`content-visibility: auto`, a 640-px placeholder each) and pictures above it arrive a
 * little later: the first scroll lands right, and a few frames on the target has moved by the difference
 * (160 px and more were seen, leaving its slider off screen). So the position is watched for a while and
 * the scroll repeated whenever the target drifts, until it has stayed put for half a second; the person
 * scrolling, typing or touching ends the watch at once.
 */
const STILL_MS = 500;
const LONGEST_MS = 3000;

export function scrollToElement(element, { block = 'start' } = {}) {
    return new Promise((resolve) => {
        element.scrollIntoView({ block, behavior: 'instant' });
        const wanted = element.getBoundingClientRect().top;
        const started = performance.now();
        let stillSince = started;
        let stopped = false;
        const stop = () => { stopped = true; };
        const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
        for (const type of inputs) window.addEventListener(type, stop, { once: true, passive: true, capture: true });
        const watch = () => {
            const now = performance.now();
            const top = element.getBoundingClientRect().top;
            if (Math.abs(top - wanted) > 1) {
                element.scrollIntoView({ block, behavior: 'instant' });
                stillSince = now;
            }
            if (stopped || now - stillSince >= STILL_MS || now - started >= LONGEST_MS || !element.isConnected) {
                for (const type of inputs) window.removeEventListener(type, stop, { capture: true });
                resolve(element.getBoundingClientRect().top);
            } else {
                requestAnimationFrame(watch);
            }
        };
        requestAnimationFrame(watch);
    });
}
