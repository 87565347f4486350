/**
 * `<db-formula-cell>`: one line of the formula language (docs/formulas.md) over the photo's planes and the
 * cells above, with a control per `$slider(min..max = start)` it declares. The server checks the line as it is
 * typed (`checkFormula`): an error is shown under the line at its position and nothing renders until it parses;
 * a line that parses replaces the cell's formula, keeping the slider values it still declares.
 */
import { h, replaceChildren } from '../dom.js';
import { OutputPanel } from './output-panel.js';
import { ParamControl } from '../widgets/param-control.js';

/** Milliseconds of typing quiet before the line is checked. */
const CHECK_DELAY_MS = 250;

export class FormulaCell extends HTMLElement {
    /**
     * @param {import('../notebook-session.js').NotebookSession} session
     * @param {object} cell
     * @param {number} index
     * @param {(change: (cell: object) => void, key?: string) => void} edit
     */
    attach(session, cell, index, edit) {
        this.session = session;
        this.cell = cell;
        this.edit = edit;
        const id = `formula-${cell.id}`;
        this.line = h('input', { type: 'text', id, class: 'formula-line', value: cell.formula ?? '', spellcheck: false,
                                 autocomplete: 'off', 'aria-describedby': `${id}-error`, disabled: !session.canEdit });
        this.errorLine = h('pre', { class: 'formula-error', id: `${id}-error`, role: 'alert', hidden: true });
        this.params = h('div', { class: 'cell-params' });
        // Each visit to the field is one typing burst: what it adopts is one step to undo.
        this.visits = 0;
        this.line.addEventListener('focus', () => { this.visits += 1; });
        this.line.addEventListener('input', () => {
            clearTimeout(this.timer);
            this.timer = setTimeout(() => this.check(this.line.value, true), CHECK_DELAY_MS);
        });
        const output = new OutputPanel().attach({
            session, cellId: cell.id, label: `formula ${cell.id} output`, before: null,
            histogram: cell.histogram ? 'always' : 'never', exports: ['jpeg'],
        });
        replaceChildren(this, h('label', { class: 'param-label', for: id, text: 'Formula' }), this.line, this.errorLine, this.params, output);
        this.check(cell.formula ?? '', false);
        return this;
    }

    /**
     * The cell as the notebook now has it, shown in place: the line keeps what is being typed in it (the notebook
     * holds the last prefix that parsed), and takes the notebook's line otherwise (the editor's typing seen by a
     * watcher) or when `force`d (an undo or redo, which also ends the typing burst).
     */
    showFormula(cell, force = false) {
        const before = this.cell?.formula ?? '';
        this.cell = cell;
        const formula = cell.formula ?? '';
        if (formula === this.line.value) return;
        if (force) this.visits += 1;
        else if (document.activeElement === this.line || formula === before) return;
        clearTimeout(this.timer);
        this.line.value = formula;
        this.check(formula, false);
    }

    disconnectedCallback() {
        clearTimeout(this.timer);
    }

    /** Asks the server about `text`; shows its sliders, or its error at its position. `typed`: adopt it if it parses. */
    async check(text, typed) {
        let answer;
        try {
            answer = await this.session.socket.request('checkFormula', { formula: text, cell: this.cell.id });
        } catch (error) {
            this.showError(text, { position: 0, message: error.message });
            return;
        }
        if (text !== this.line.value) return;  // typed on since: the newer check answers
        if (!answer.ok) {
            this.showError(text, answer.error);
            return;
        }
        this.errorLine.hidden = true;
        this.line.removeAttribute('aria-invalid');
        this.showSliders(answer.sliders);
        if (typed && text !== (this.cell.formula ?? '')) {
            const declared = new Set(answer.sliders.map((slider) => slider.name));
            this.edit((draft) => {
                draft.formula = text;
                const kept = Object.entries(draft.params ?? {}).filter(([name]) => declared.has(name));
                draft.params = Object.fromEntries(kept);
            }, `formula:${this.cell.id}:${this.visits}`);
        }
    }

    /** The line, a caret under the offending character, and the message. */
    showError(text, { position, message }) {
        const at = Math.max(0, Math.min(text.length, position ?? 0));
        this.errorLine.textContent = `${text}\n${' '.repeat(at)}^ ${message}`;
        this.errorLine.hidden = false;
        this.errorLine.dataset.position = String(at);
        this.line.setAttribute('aria-invalid', 'true');
    }

    showSliders(sliders) {
        const values = this.session.cell(this.cell.id)?.params ?? {};
        const controls = sliders.map((slider) => {
            const descriptor = { name: slider.name, label: slider.name, type: 'number', min: slider.min, max: slider.max,
                                 default: slider.default, step: slider.step,
                                 doc: `$${slider.name}(${slider.min}..${slider.max} = ${slider.default}) in the line.` };
            const control = new ParamControl().attach(descriptor, values[slider.name],
                (value, interactive) => this.session.setParam(this.cell.id, slider.name, value, { interactive }));
            if (!this.session.canEdit) control.querySelectorAll('input, button').forEach((element) => { element.disabled = true; });
            return control;
        });
        replaceChildren(this.params, ...controls);
    }
}

customElements.define('db-formula-cell', FormulaCell);
