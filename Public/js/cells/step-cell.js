/**
 * `<db-step-cell>`: an effect from the catalog applied to inputs chosen from earlier cells or photo planes,
 * with one control per parameter. Moving a control sends the change live (coalesced per animation frame by
 * the session); the preview follows, and the downstream cells with it.
 */
import { h, replaceChildren } from '../dom.js';
import { choicesFor, previewTarget } from '../notebook-graph.js';
import { referencePicker } from './reference-picker.js';
import { cellTitle, referenceLabel } from '../cell-names.js';
import { linkOf } from '../linked-params.js';
import { OutputPanel } from './output-panel.js';
import { ParamControl } from '../widgets/param-control.js';
import { LoopPlayer } from '../widgets/loop-player.js';

export class StepCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {object} cell
     * @param {number} index
     * @param {(change: (cell: object) => void) => void} edit
     */
    attach(session, cell, index, edit) {
        this.session = session;
        this.cell = cell;
        const effect = session.catalog.get(cell.effect);
        if (!effect) {
            this.replaceChildren(h('p', { class: 'error-text', text: `The server knows no effect named "${String(cell.effect)}".` }));
            return this;
        }
        const summary = effect.summary ? h('p', { class: 'effect-summary', text: effect.summary }) : null;
        const inputs = h('div', { class: 'cell-inputs' });
        for (const slot of effect.inputs ?? []) {
            const choices = choicesFor(session.notebook, session.graph, session.photo, session.planeNames, index, slot.kind === 'plane' ? 'plane' : 'image');
            inputs.append(referencePicker(slot.name === 'input' ? 'Input' : `Input: ${slot.name}`, choices, cell.inputs?.[slot.name], Boolean(slot.optional), (reference) => edit((draft) => {
                const next = { ...(draft.inputs ?? {}) };
                if (reference === null) delete next[slot.name];
                else next[slot.name] = reference;
                draft.inputs = next;
            }), !session.canEdit, (reference) => referenceLabel(session, reference)));
        }

        this.controls = new Map();
        const params = h('div', { class: 'cell-params' });
        for (const descriptor of effect.parameters ?? []) {
            // A link shows one control, its leader's, under the link's label; the other members say what they follow.
            const link = linkOf(session.notebook, cell.id, descriptor.name);
            const labelled = link ? { ...descriptor, label: link.label } : descriptor;
            const control = new ParamControl().attach(labelled, cell.params?.[descriptor.name],
                (value, interactive) => session.setParam(cell.id, descriptor.name, value, { interactive }));
            if (!session.canEdit) control.querySelectorAll('input, select, button').forEach((element) => { element.disabled = true; });
            const titled = (member) => `“${cellTitle(session, session.cell(member.cell) ?? { id: member.cell })}” (${member.cell})`;
            if (link?.leads && link.others.length > 0) control.showLinked(`${link.label}, linked: also sets ${link.others.map(titled).join(', ')}.`);
            else if (link && !link.leads) control.showFollower(`${link.label}, linked: follows the control in ${titled(link.leader)}.`);
            this.controls.set(descriptor.name, control);
            params.append(control);
        }
        this.onParamError = (event) => {
            if (event.detail.cell !== cell.id) return;
            for (const [name, value] of Object.entries(event.detail.restored)) {
                const control = this.controls.get(name);
                control?.setValue(value ?? control.descriptor.default);
                control?.showError(event.detail.message);
            }
        };
        session.addEventListener('paramError', this.onParamError);
        // A linked parameter moved in another cell: this one moved with it.
        this.onLinked = (event) => {
            if (event.detail.cell === cell.id) this.controls.get(event.detail.name)?.setValue(event.detail.value);
        };
        session.addEventListener('linkedvalue', this.onLinked);
        // Values the server picked from the photo for parameters this cell leaves out: shown, not set.
        this.onFrame = (event) => {
            const { header } = event.detail.frame;
            if (header.cell !== cell.id || !header.chosen) return;
            const params = session.cell(cell.id)?.params ?? {};
            for (const [name, value] of Object.entries(header.chosen)) {
                if (params[name] === undefined) this.controls.get(name)?.showChosen(value);
            }
        };
        session.addEventListener('frame', this.onFrame);
        params.addEventListener('pickrequest', (event) => this.togglePicking(event.detail.name));
        params.addEventListener('uploadrequest', (event) => {
            const { file, resolve, reject } = event.detail;
            session.uploads.uploadPicture(file).then(resolve, (error) => reject(error.message));
        });

        const before = this.beforeReference(effect);
        const output = effect.output === 'plane' ? 'plane' : 'image';
        const exports = (output === 'plane' ? ['png'] : ['jpeg', ...(effect.animated ? ['gif', 'mp4'] : [])]);
        this.output = new OutputPanel().attach({
            session, cellId: cell.id, label: `${effect.title ?? effect.id} output`, before,
            histogram: cell.histogram ? 'always' : 'marker', exports,
            // Only effects with a point parameter take clicks as picks; elsewhere a click always zooms.
            onPick: (effect.parameters ?? []).some((descriptor) => descriptor.type === 'point') ? (point) => this.pick(point) : null,
        });
        this.picking = null;
        // An animated effect (Wiggle) can also play its loop here.
        const loop = effect.animated && session.canRender ? new LoopPlayer().attach(session, cell.id) : null;
        replaceChildren(this, summary, inputs, params, loop, this.output);
        return this;
    }

    disconnectedCallback() {
        this.session?.removeEventListener('paramError', this.onParamError);
        this.session?.removeEventListener('frame', this.onFrame);
        this.session?.removeEventListener('linkedvalue', this.onLinked);
    }

    /** The input a before/after split compares against: the first image input, else the first input. */
    beforeReference(effect) {
        const slots = effect.inputs ?? [];
        const imageSlot = slots.find((slot) => slot.kind !== 'plane' && this.cell.inputs?.[slot.name]);
        const anySlot = slots.find((slot) => this.cell.inputs?.[slot.name]);
        const slot = imageSlot ?? anySlot;
        return slot ? previewTarget(this.session.notebook, this.cell.inputs[slot.name]) : null;
    }

    togglePicking(name) {
        this.picking = this.picking === name ? null : name;
        for (const [paramName, control] of this.controls) control.setPicking(paramName === this.picking);
        this.output.picking = this.picking !== null;
    }

    /** Sets the point parameter being picked from a click on the preview; returns whether it took the click. */
    pick({ x, y }) {
        if (!this.picking) return false;
        const name = this.picking;
        const point = [Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000];
        this.controls.get(name)?.setValue(point);
        this.session.setParam(this.cell.id, name, point, { interactive: false });
        this.togglePicking(name);
        return true;
    }
}

customElements.define('db-step-cell', StepCell);
