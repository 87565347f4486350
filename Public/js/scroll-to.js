/**
 * Scrolls an element to the top of its scroller and keeps it there while the page settles. Cells far from
 * view skip layout (`content-visibility: auto`, a 640-px placeholder each): one scroll lays out the cells it
 * passes, which moves the target by the difference (160 px was seen, leaving its slider off screen). So
 * the scroll is repeated, a frame at a time, until the target stays put.
 */
export function scrollToElement(element, { block = 'start', frames = 20 } = {}) {
    return new Promise((resolve) => {
        let last = null;
        let still = 0;
        const step = (left) => {
            element.scrollIntoView({ block, behavior: 'instant' });
            const top = Math.round(element.getBoundingClientRect().top);
            still = top === last ? still + 1 : 0;
            last = top;
            if (still >= 2 || left <= 0) resolve(top);
            else requestAnimationFrame(() => step(left - 1));
        };
        step(frames);
    });
}
