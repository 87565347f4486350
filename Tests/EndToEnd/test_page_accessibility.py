"""Accessibility of the notebook page in a real browser: every control has an accessible name (as Chromium's
own accessibility tree computes it, and for hidden controls by the same rules in the page), every control
can be reached with the Tab key, and every piece of visible text has WCAG contrast against the background it
is drawn on (4.5:1 for body text, 3:1 for large text), in the light and in the dark colour scheme."""
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import open_notebook, screenshot, settled_frame, wait_for

NOTEBOOKS = ["depth-threshold", "backdrop", "blend-mask"]
CONTROL_ROLES = {"button", "textbox", "combobox", "slider", "spinbutton", "checkbox", "listbox", "searchbox",
                 "radio", "link", "menuitem", "switch", "PopUpButton"}

# Every control in the document (shown or hidden) whose accessible name, by the accname rules the page
# relies on (aria-labelledby, aria-label, <label>, button text, title), is empty.
UNNAMED_CONTROLS_JS = """
const text = (el) => (el?.textContent ?? '').replace(/\\s+/g, ' ').trim();
const nameOf = (el) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
        const joined = labelledBy.split(/\\s+/).map((id) => text(document.getElementById(id))).join(' ').trim();
        if (joined) return joined;
    }
    if ((el.getAttribute('aria-label') ?? '').trim()) return el.getAttribute('aria-label').trim();
    const fromLabels = [...(el.labels ?? [])].map(text).join(' ').trim();
    if (fromLabels) return fromLabels;
    if (el.tagName === 'BUTTON' && text(el)) return text(el);
    if ((el.getAttribute('title') ?? '').trim()) return el.getAttribute('title').trim();
    return '';
};
return [...document.querySelectorAll('input, button, select, textarea, [role=button], [tabindex]:not([tabindex="-1"])')]
    .filter((el) => el.type !== 'hidden' && !nameOf(el))
    .map((el) => el.outerHTML.slice(0, 160));
"""

# Every visible piece of text, with its colour, the colour of what is behind it and whether it is large.
TEXT_COLOURS_JS = """
const parse = (value) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(value);
    if (!m) return null;
    const parts = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
};
const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
    const mix = (t, b) => (t * top.a + b * bottom.a * (1 - top.a)) / a;
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
};
// The colour behind an element: its own background and its ancestors', composited down to the canvas.
// null when a picture lies behind (a background image), where no single colour says it.
const backgroundOf = (element) => {
    const layers = [];
    for (let el = element; el; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.backgroundImage !== 'none') return null;
        const colour = parse(style.backgroundColor);
        if (colour && colour.a > 0) layers.push(colour);
        if (colour && colour.a >= 1) break;
    }
    const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
    let result = canvas && canvas.a > 0 ? canvas : { r: 255, g: 255, b: 255, a: 1 };
    if (layers.length && layers[layers.length - 1].a >= 1) result = layers.pop();
    while (layers.length) result = over(layers.pop(), result);
    return result;
};
const opacityOf = (element) => {
    let opacity = 1;
    for (let el = element; el; el = el.parentElement) opacity *= Number(getComputedStyle(el).opacity);
    return opacity;
};
const samples = [];
const seen = new Set();
const add = (element, colour, what) => {
    const style = getComputedStyle(element);
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const background = backgroundOf(element);
    if (!background) return;
    const ink = parse(colour);
    if (!ink) return;
    ink.a *= opacityOf(element);
    samples.push({ what: what.slice(0, 80), where: element.tagName.toLowerCase() + (element.className ? '.' + String(element.className).split(' ').join('.') : ''),
                   ink: over(ink, background), background, large: size >= 24 || (bold && size >= 18.66) });
};
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    const words = node.textContent.trim();
    if (!words || !element || seen.has(element)) continue;
    // Disabled controls are exempt (WCAG 1.4.3: "part of an inactive user interface component").
    if (element.closest(':disabled, [aria-disabled=true], option, script, style, noscript')) continue;
    if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || getComputedStyle(element).clipPath.startsWith('inset(50%')) continue;
    seen.add(element);
    add(element, getComputedStyle(element).color, words);
}
for (const field of document.querySelectorAll('input[type=text], input[type=number], select, textarea, input:not([type])')) {
    if (field.disabled || !field.checkVisibility()) continue;
    if (field.value) add(field, getComputedStyle(field).color, `value of ${field.id || field.className}`);
    else if (field.placeholder) add(field, getComputedStyle(field, '::placeholder').color, `placeholder "${field.placeholder}"`);
}
return samples;
"""


def luminance(colour: dict) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(colour["r"]) + 0.7152 * channel(colour["g"]) + 0.0722 * channel(colour["b"])


def contrast(a: dict, b: dict) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_formula_matches_wcag_examples():
    """The reference numbers WCAG gives: black on white 21:1, white on white 1:1, #777 on white about 4.48:1."""
    white, black, grey = ({"r": v, "g": v, "b": v} for v in (255, 0, 0x77))
    assert round(contrast(black, white), 2) == 21.0
    assert contrast(white, white) == 1.0
    assert 4.47 < contrast(grey, white) < 4.49


def use_colour_scheme(browser, scheme: str) -> None:
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    wait_for(f"the {scheme} scheme to apply", lambda: browser.execute_script(
        "return matchMedia(`(prefers-color-scheme: ${arguments[0]})`).matches", scheme))


def open_everything(browser) -> None:
    """Shows what is folded away: one add-cell form, the photo metadata, a note editor."""
    browser.execute_script("""
        document.querySelector('button.add-cell-open')?.click();
        document.querySelectorAll('details').forEach((d) => { d.open = true; });
        document.querySelector('button.note-edit')?.click();""")


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_control_has_an_accessible_name(depthbook_server, browser, notebook):
    open_notebook(browser, depthbook_server.base_url, notebook)
    unnamed = browser.execute_script(UNNAMED_CONTROLS_JS)
    assert not unnamed, "controls without an accessible name:\n" + "\n".join(unnamed)

    open_everything(browser)
    browser.execute_cdp_cmd("Accessibility.enable", {})
    nodes = browser.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    controls = [n for n in nodes if not n.get("ignored") and n.get("role", {}).get("value") in CONTROL_ROLES]
    assert len(controls) > 20, f"Chromium's accessibility tree lists only {len(controls)} controls"
    nameless = [f"{n['role']['value']} (backend node {n.get('backendDOMNodeId')})" for n in controls
                if not str(n.get("name", {}).get("value", "")).strip()]
    assert not nameless, f"Chromium computes no name for: {nameless}"


def test_every_control_is_reachable_with_tab(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    settled_frame(browser, "mask")
    open_everything(browser)
    count = browser.execute_script("""
        const controls = [...document.querySelectorAll('input, button, select, textarea, a[href], [role=button], summary')]
            .filter((el) => !el.disabled && el.checkVisibility() && el.getBoundingClientRect().width > 0);
        controls.forEach((el, i) => { el.dataset.a11yIndex = String(i); });
        document.activeElement?.blur();
        return controls.length;""")
    assert count > 30
    reached = set()
    for _ in range(count * 2 + 20):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        index = browser.execute_script("return document.activeElement?.dataset?.a11yIndex ?? null")
        if index is not None:
            if int(index) in reached and len(reached) == count:
                break
            reached.add(int(index))
    missed = browser.execute_script(
        "return [...document.querySelectorAll('[data-a11y-index]')].filter((el) => !arguments[0].includes(Number(el.dataset.a11yIndex)))"
        ".map((el) => el.outerHTML.slice(0, 140))", sorted(reached))
    assert not missed, "controls Tab never reaches:\n" + "\n".join(missed)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_text_contrast_meets_wcag_aa(depthbook_server, browser, artifacts_dir, notebook, scheme):
    use_colour_scheme(browser, scheme)
    open_notebook(browser, depthbook_server.base_url, notebook)
    wait_for("every preview to show a frame or an error", lambda: browser.execute_script(
        "return [...document.querySelectorAll('db-preview')].every((p) => p.dataset.state === 'ready' || p.dataset.problem)"))
    open_everything(browser)
    samples = browser.execute_script(TEXT_COLOURS_JS)
    assert len(samples) > 30, f"only {len(samples)} pieces of text were found"
    failing = []
    for sample in samples:
        ratio = contrast(sample["ink"], sample["background"])
        needed = 3.0 if sample["large"] else 4.5
        if ratio < needed:
            failing.append(f"{ratio:.2f} < {needed} in {sample['where']}: {sample['what']!r}")
    screenshot(browser, artifacts_dir, f"contrast-{notebook}-{scheme}")
    assert not failing, f"{len(failing)} text colours fail WCAG AA ({scheme}):\n" + "\n".join(sorted(set(failing)))
