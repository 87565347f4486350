/**
 * `<db-param>`: one effect parameter as the catalog describes it (`effects` reply: name, label, type, min,
 * max, step, default, unit, choices, doc).
 *
 * - number: a native range slider and a number field kept in step, so it works by mouse, touch, keyboard
 *   (arrows nudge, Page Up/Down jump) and typing; `input` events are interactive, `change` is the final value.
 * - choice: a select; bool: a checkbox; point: x and y fields (0...1) plus a toggle to pick on the image.
 * - upload: a file chooser for a picture of the user's own (Backdrop's background). The element asks its
 *   owner to upload it (`uploadrequest` event with the file and a `resolve(id)` callback) and keeps the id.
 * - A reset button returns to the catalog default.
 *
 * The owner passes `onValue(value, interactive)`; the element never talks to the server itself.
 */
import { h, uniqueId } from '../dom.js';

export class ParamControl extends HTMLElement {
    /**
     * @param {object} descriptor the catalog entry for the parameter
     * @param {any} value the current value (the default when the notebook leaves it out)
     * @param {(value: any, interactive: boolean) => void} onValue
     */
    attach(descriptor, value, onValue) {
        this.descriptor = descriptor;
        this.onValue = onValue;
        this.dataset.param = descriptor.name;
        this.dataset.type = descriptor.type;
        const id = uniqueId(`param-${descriptor.name}`);
        const docId = `${id}-doc`;
        const label = descriptor.label || descriptor.name;
        const unit = descriptor.unit ? h('span', { class: 'param-unit', text: descriptor.unit }) : null;
        // A value the server picks from the photo resets to that choice, not to a fixed default.
        const reset = descriptor.fromPhoto
            ? h('button', {
                type: 'button', class: 'param-reset', title: `Let the photo choose ${label} again`,
                'aria-label': `Reset ${label} to the value found from the photo`,
                onclick: () => { this.fromPhoto = true; this.commit(undefined, false); },
            }, '↺')
            : h('button', {
                type: 'button', class: 'param-reset', title: `Reset ${label} to its default`,
                'aria-label': `Reset ${label} to ${formatDefault(descriptor.default)}`,
                onclick: () => this.commit(descriptor.default, false, true),
            }, '↺');
        const doc = descriptor.doc ? h('p', { class: 'param-doc', id: docId, text: descriptor.doc }) : null;
        const describedBy = doc ? docId : null;
        let editor;
        switch (descriptor.type) {
            case 'choice': editor = this.buildChoice(id, describedBy); break;
            case 'bool': editor = this.buildBool(id, describedBy); break;
            case 'point': editor = this.buildPoint(id, label, describedBy); break;
            case 'upload': editor = this.buildUpload(id, label, describedBy); break;
            default: editor = this.buildNumber(id, label, describedBy); break;
        }
        this.errorLine = h('p', { class: 'param-error', role: 'alert', hidden: true });
        this.chosenTag = h('span', { class: 'param-chosen', text: ' (from the photo)', hidden: true });
        this.replaceChildren(
            h('label', { class: 'param-label', for: id }, label, this.chosenTag),
            h('div', { class: 'param-editor' }, editor, unit, reset),
            this.errorLine,
            doc,
        );
        this.fromPhoto = Boolean(descriptor.fromPhoto) && value === undefined;
        this.setValue(value ?? descriptor.default);
        this.chosenTag.hidden = !this.fromPhoto;
        return this;
    }

    /** Says which other parameters move with this one (the notebook links them). */
    showLinked(text) {
        this.querySelector('.param-linked')?.remove();
        this.errorLine.before(h('p', { class: 'param-linked', text }));
        this.dataset.linked = 'true';
    }

    /**
     * This parameter follows another cell's control (the notebook links them): its value shows, read-only, and
     * its own slider, field and reset are gone, so a link is one control on the page.
     */
    showFollower(text) {
        this.showLinked(text);
        this.querySelector('.param-editor').hidden = true;
        this.followed = h('output', { class: 'param-followed', text: String(this.value ?? '') });
        this.querySelector('.param-label').after(this.followed);
        this.dataset.follower = 'true';
    }

    /** Shows the value the server picked from the photo, while the user has not set one. */
    showChosen(value) {
        this.lastChosen = value;
        if (!this.fromPhoto) return;
        // A number field someone is in keeps its text and selection (a render arriving meanwhile would wipe
        // what they select or type); it shows the photo's value when they leave it.
        if (this.number && document.activeElement === this.number) {
            this.value = value;
            this.range.value = String(value);
        } else {
            this.setValue(value);
        }
        this.chosenTag.hidden = false;
        this.dataset.chosen = String(value);
    }

    /** The notebook no longer sets this parameter (reverted, or reset elsewhere): the photo's value again. */
    leaveToPhoto() {
        if (!this.descriptor.fromPhoto) return false;
        this.fromPhoto = true;
        this.chosenTag.hidden = false;
        if (this.lastChosen !== undefined) this.showChosen(this.lastChosen);
        return true;
    }

    buildNumber(id, label, describedBy) {
        const { min = 0, max = 1 } = this.descriptor;
        // Without a declared step, a hundredth of the range: fine enough to drag, coarse enough for arrows.
        const step = Number(this.descriptor.step) > 0 ? this.descriptor.step : (Number(max) - Number(min)) / 100;
        this.range = h('input', { type: 'range', id, min, max, step, 'aria-describedby': describedBy, class: 'param-range' });
        this.number = h('input', {
            type: 'number', min, max, step, class: 'param-number', 'aria-label': `${label} value`, 'aria-describedby': describedBy,
        });
        this.range.addEventListener('input', () => {
            this.number.value = this.range.value;
            this.commit(Number(this.range.value), true);
        });
        this.range.addEventListener('change', () => this.commit(Number(this.range.value), false));
        this.number.addEventListener('blur', () => { if (this.fromPhoto && this.value !== undefined) this.number.value = String(this.value); });
        this.number.addEventListener('change', () => {
            const value = Number(this.number.value);
            if (this.number.value === '' || !Number.isFinite(value)) {
                this.number.value = this.range.value;
                return;
            }
            const clamped = Math.min(Number(max), Math.max(Number(min), value));
            this.commit(clamped, false, true);
        });
        return h('div', { class: 'param-number-pair' }, this.range, this.number);
    }

    buildChoice(id, describedBy) {
        this.select = h('select', { id, 'aria-describedby': describedBy },
            ...(this.descriptor.choices ?? []).map((choice) => h('option', { value: choice, text: choice })));
        this.select.addEventListener('change', () => this.commit(this.select.value, false));
        return this.select;
    }

    buildBool(id, describedBy) {
        this.checkbox = h('input', { type: 'checkbox', id, 'aria-describedby': describedBy });
        this.checkbox.addEventListener('change', () => this.commit(this.checkbox.checked, false));
        return this.checkbox;
    }

    buildPoint(id, label, describedBy) {
        const field = (axis, fieldId) => {
            const input = h('input', {
                type: 'number', id: fieldId, min: 0, max: 1, step: 0.001, class: 'param-number',
                'aria-label': `${label} ${axis}`, 'aria-describedby': describedBy,
            });
            input.addEventListener('change', () => this.commit(this.pointFromFields(), false));
            return input;
        };
        this.pointX = field('x', id);
        this.pointY = field('y', `${id}-y`);
        this.pickButton = h('button', {
            type: 'button', class: 'pick-toggle', 'aria-pressed': 'false',
            onclick: () => this.dispatchEvent(new CustomEvent('pickrequest', { bubbles: true, detail: { name: this.descriptor.name } })),
        }, 'Pick on image');
        return h('div', { class: 'param-point' }, 'x ', this.pointX, ' y ', this.pointY, this.pickButton);
    }

    buildUpload(id, label, describedBy) {
        this.file = h('input', {
            type: 'file', id, class: 'param-upload', accept: '.heic,.heif,.jpg,.jpeg,.png,image/*', 'aria-describedby': describedBy,
        });
        this.uploadState = h('span', { class: 'param-upload-state', role: 'status' });
        this.clearButton = h('button', {
            type: 'button', class: 'param-clear', 'aria-label': `Stop using the uploaded ${label.toLowerCase()}`,
            onclick: () => this.commit('', false, true),
        }, 'None');
        this.file.addEventListener('change', () => {
            const chosen = this.file.files?.[0];
            if (!chosen) return;
            this.uploadState.textContent = `Uploading ${chosen.name}…`;
            this.dispatchEvent(new CustomEvent('uploadrequest', {
                bubbles: true,
                detail: {
                    file: chosen,
                    resolve: (uploadId) => this.commit(uploadId, false, true),
                    reject: (message) => { this.uploadState.textContent = `Not uploaded: ${message}`; },
                },
            }));
        });
        return h('div', { class: 'param-upload-pair' }, this.file, this.clearButton, this.uploadState);
    }

    /** Both fields empty means "not set" ([-1, -1], the catalog's convention); otherwise each is kept in 0...1. */
    pointFromFields() {
        if (this.pointX.value === '' && this.pointY.value === '') return [-1, -1];
        const clamp = (text) => (text === '' || !Number.isFinite(Number(text)) ? 0.5 : Math.min(1, Math.max(0, Number(text))));
        return [clamp(this.pointX.value), clamp(this.pointY.value)];
    }

    /** Shows a value without reporting it (it came from the notebook, or was just committed). */
    setValue(value) {
        this.value = value;
        if (this.followed) this.followed.textContent = String(value ?? '');
        switch (this.descriptor.type) {
            case 'choice': this.select.value = String(value ?? ''); break;
            case 'bool': this.checkbox.checked = Boolean(value); break;
            case 'upload':
                this.file.value = '';
                this.uploadState.textContent = value ? `Using upload ${String(value).slice(0, 12)}…` : 'None uploaded';
                this.clearButton.disabled = !value;
                break;
            case 'point': {
                const [x, y] = Array.isArray(value) ? value : [-1, -1];
                const unset = !(x >= 0 && y >= 0);
                this.pointX.value = unset ? '' : String(roundPoint(x));
                this.pointY.value = unset ? '' : String(roundPoint(y));
                this.pointX.placeholder = unset ? 'not set' : '';
                this.pointY.placeholder = unset ? 'not set' : '';
                break;
            }
            default:
                if (Number.isFinite(Number(value))) {
                    this.range.value = String(value);
                    this.number.value = String(value);
                }
        }
    }

    /** Shows and reports a value. `reflect` also updates the editors (reset, typed or picked values). */
    commit(value, interactive, reflect = false) {
        this.showError(null);
        if (value !== undefined) {
            this.fromPhoto = false;
            this.chosenTag.hidden = true;
            delete this.dataset.chosen;
        }
        if (reflect) this.setValue(value);
        this.value = value;
        this.onValue(value, interactive);
    }

    /** The server refused the value: say why beside the control (null clears it). */
    showError(message) {
        this.errorLine.hidden = !message;
        this.errorLine.textContent = message ?? '';
        this.toggleAttribute('aria-invalid', Boolean(message));
    }

    setPicking(active) {
        this.pickButton?.setAttribute('aria-pressed', String(active));
    }

    /** The element keyboard users land on first. */
    get primaryControl() {
        return this.range ?? this.select ?? this.checkbox ?? this.pointX ?? this.file;
    }
}

function roundPoint(value) {
    return Math.round(Number(value) * 1000) / 1000;
}

function formatDefault(value) {
    return Array.isArray(value) ? `(${value.join(', ')})` : String(value);
}

customElements.define('db-param', ParamControl);
