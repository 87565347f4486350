/**
 * Presenter mode for demos: the output fills the screen (the pinned cell, else the notebook's result: see
 * `<db-pinned>`), the cells' controls sit in a narrow column beside it, and the page goes fullscreen.
 * - P toggles presenter mode; Escape (or leaving fullscreen) ends it.
 * - J / Page Down and K / Page Up move to the next or previous cell and focus its first slider (else its
 *   picture, else its header).
 * - Arrows nudge the focused slider (native); Shift+arrows nudge ten steps.
 * Keys are ignored while typing in a text field.
 */
import { scrollToElement } from './scroll-to.js';

export class Presenter extends EventTarget {
    constructor(root) {
        super();
        this.root = root;
        this.active = false;
        this.fullscreen = false;
        document.addEventListener('keydown', (event) => this.onKey(event));
        // Escape in fullscreen is taken by the browser and never reaches the page: leaving fullscreen ends presenting.
        document.addEventListener('fullscreenchange', () => {
            if (document.fullscreenElement || !this.fullscreen) return;
            this.fullscreen = false;
            if (this.active) this.toggle(false);
        });
    }

    toggle(force) {
        const active = force ?? !this.active;
        if (active === this.active) return;
        this.active = active;
        document.body.classList.toggle('presenter', active);
        if (active && document.fullscreenEnabled && !document.fullscreenElement) {
            // Refused without a user gesture (or in a frame): presenting goes on in the window.
            document.documentElement.requestFullscreen({ navigationUI: 'hide' }).then(() => { this.fullscreen = true; }, () => {});
        } else if (!active && this.fullscreen && document.fullscreenElement) {
            this.fullscreen = false;
            document.exitFullscreen().catch(() => {});
        }
        this.dispatchEvent(new CustomEvent('change', { detail: { active } }));
        // The column opens on what is moved on stage, not on the intro note and the photo (issue 39): the first
        // slider's cell at its top, the slider focused so the arrows move it at once.
        if (active) requestAnimationFrame(() => this.showFirstSlider());
    }

    showFirstSlider() {
        if (this.root.contains(document.activeElement) && document.activeElement !== document.body) return;
        const slider = [...this.root.querySelectorAll('db-cell .cell-body input[type=range]')]
            .find((element) => element.checkVisibility() && !element.disabled);
        if (!slider) return;
        scrollToElement(slider.closest('db-cell'));
        slider.focus({ preventScroll: true });
    }

    onKey(event) {
        if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
        const target = event.target;
        const typing = target instanceof HTMLTextAreaElement || target.isContentEditable || (target instanceof HTMLInputElement && !['range', 'checkbox', 'button'].includes(target.type)) || target instanceof HTMLSelectElement;
        if (target instanceof HTMLInputElement && target.type === 'range' && event.shiftKey && ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(event.key)) {
            event.preventDefault();
            nudge(target, event.key === 'ArrowRight' || event.key === 'ArrowUp' ? 10 : -10);
            return;
        }
        if (typing || target.closest?.('dialog')) return;
        if (event.key === 'p' || event.key === 'P') {
            event.preventDefault();
            this.toggle();
        } else if (event.key === 'Escape' && this.active) {
            this.toggle(false);
        } else if (this.active && (event.key === 'j' || event.key === 'PageDown') && !(target instanceof HTMLInputElement && target.type === 'range')) {
            event.preventDefault();
            this.step(1);
        } else if (this.active && (event.key === 'k' || event.key === 'PageUp') && !(target instanceof HTMLInputElement && target.type === 'range')) {
            event.preventDefault();
            this.step(-1);
        }
    }

    /** Focuses the first control of the next/previous cell and brings it into view. */
    step(direction) {
        const cells = [...this.root.querySelectorAll('db-cell')];
        if (cells.length === 0) return;
        const current = cells.findIndex((cell) => cell.contains(document.activeElement));
        const next = cells[Math.min(cells.length - 1, Math.max(0, current + direction))] ?? cells[0];
        scrollToElement(next);
        // The first slider, else the picture, else the cell's collapse button: never a select or a text field,
        // where J and K would be typed rather than move on. Hidden controls are skipped.
        const visible = (selector) => [...next.querySelectorAll(selector)].find((element) => element.checkVisibility() && !element.disabled);
        const control = visible('.cell-body input[type=range]') ?? visible('.cell-body db-preview') ?? visible('.cell-header button');
        control?.focus({ preventScroll: true });
    }
}

/** Moves a range input by `steps` of its step and reports it like a user change. */
function nudge(range, steps) {
    const step = Number(range.step) || (Number(range.max) - Number(range.min)) / 100 || 1;
    const value = Math.min(Number(range.max), Math.max(Number(range.min), Number(range.value) + steps * step));
    range.value = String(value);
    range.dispatchEvent(new Event('input', { bubbles: true }));
    range.dispatchEvent(new Event('change', { bubbles: true }));
}
