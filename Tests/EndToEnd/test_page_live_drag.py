"""Live drag on a real photo, as a person does it: the 12 MP rear-camera HEIC chosen in the photo cell, then
the mask's percentile slider dragged with real mouse events while the notebook's `result` cell, far below,
keeps updating. No timing thresholds: the figures (updates a second, gaps) are measured by
../shared/tools/drag_measure.py and written in docs/server.md."""
from __future__ import annotations

import json
import time

from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR
from page_support import open_notebook, wait_for
from test_server_support import REPO_ROOT

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"
RECORD = """
window.__shown = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    const preview = node.tagName === 'IMG' && node.closest('db-preview');
    if (preview) window.__shown.push({reference: preview.dataset.reference, seq: Number(preview.dataset.seq),
                                      coarse: preview.dataset.coarse === 'true', at: performance.now()});
  }
}).observe(document.body, {childList: true, subtree: true});
"""


def dependents(cell_id: str) -> list[str]:
    """Cells of the bundled depth-threshold notebook that read `cell_id`, directly or through others."""
    notebook = json.loads((REPO_ROOT / "Notebooks" / "depth-threshold.json").read_text())
    affected, found = {cell_id}, []
    for cell in notebook["cells"]:
        reads = list((cell.get("inputs") or {}).values()) + ([cell["input"]] if cell.get("input") else [])
        if cell["id"] != cell_id and any(r.split(".")[0] in affected for r in reads):
            affected.add(cell["id"])
            found.append(cell["id"])
    return found


def result_full_frame(browser):
    return browser.execute_script("""
        const p = document.querySelector('db-cell[data-cell="result"] db-preview[data-reference="result"]');
        return p && p.dataset.state === 'ready' && p.dataset.coarse === 'false' ? Number(p.dataset.seq) : null;""")


def test_dragging_an_upstream_slider_updates_the_result_during_the_drag(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    photo_cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    photo_cell.find_element(By.CSS_SELECTOR, "input.upload-photo").send_keys(str(PUG))
    # The photo cell is built anew for the new photo: look it up again each time.
    wait_for("the pug to open", lambda: "4032" in browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]").text,
             timeout=180)
    browser.execute_script(RECORD)
    # Its learned matte comes a second or so later and every cell renders again then: the drag starts once that
    # has come and the page has had no new picture for two seconds.
    wait_for("the pug's matte", lambda: not browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=photo] [data-coming]"),
             timeout=180)
    wait_for("the result on the pug", lambda: result_full_frame(browser), timeout=180)
    wait_for("the page to settle", lambda: browser.execute_script(
        "const s = window.__shown; return performance.now() - (s.length ? s[s.length - 1].at : 0) > 2000"), timeout=180)
    before = result_full_frame(browser)
    # The result's frames on the pug must be newer than the upload; wait until the chain has settled on it.
    wait_for("the result to be rendered from the pug", lambda: (
        browser.execute_script("return document.querySelector('db-cell[data-cell=\"result\"] db-preview').dataset.frameWidth") is not None))

    slider = browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="mask"] db-param[data-param="percentile"] input[type=range]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    browser.execute_script("window.__shown = []")
    # Cells between the slider and the result that are well out of view (more than a screen away, as the page
    # counts it): they wait while the slider moves and catch up when it is let go.
    away = browser.execute_script("""
        const below = arguments[0];
        return below.filter((id) => {
            const cell = document.querySelector(`db-cell[data-cell="${id}"]`);
            const box = cell.getBoundingClientRect();
            // The page counts a preview within a screen of the viewport as seen; a cell near that edge may cross
            // it as readouts and histograms above it change height mid-drag, so only cells half a screen past it count.
            return cell.querySelector('db-preview') && (box.top > 2.5 * innerHeight || box.bottom < -1.5 * innerHeight);
        });""", [c for c in dependents("mask") if c != "result"])
    box = browser.execute_script("const b = arguments[0].getBoundingClientRect(); return [b.left, b.top, b.width, b.height]", slider)
    y = box[1] + box[3] / 2
    start, end = box[0] + box[2] * 0.3, box[0] + box[2] * 0.7

    def mouse(kind: str, x: float) -> None:
        browser.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    mouse("mousePressed", start)
    steps = 40
    for step in range(1, steps + 1):
        mouse("mouseMoved", start + (end - start) * step / steps)
        time.sleep(0.05)
    shown_during = browser.execute_script("return window.__shown")
    during = [s for s in shown_during if s["reference"] == "result"]
    mouse("mouseReleased", end)

    # While the button was still down, the result (five cells below the slider) showed new pictures.
    assert len({s["seq"] for s in during}) >= 2, f"the result updated during the drag: {during}"
    assert all(s["seq"] > before for s in during)
    # After the release the result settles on a full frame answering the final value.
    final = wait_for("the final full frame", lambda: (
        seq if (seq := result_full_frame(browser)) and seq >= max(s["seq"] for s in during) else None), timeout=120)
    assert final > before
    assert away, "the notebook is long enough that some cells between the slider and the result are out of view"
    assert not [s for s in shown_during if s["reference"] in away], "cells out of view waited during the drag"
    for cell in away:
        wait_for(f"{cell} to catch up with the final value", lambda: browser.execute_script(
            f"const p = document.querySelector('db-cell[data-cell=\"{cell}\"] db-preview');"
            "return p && Number(p.dataset.seq) >= arguments[0] && p.dataset.coarse === 'false'", final), timeout=120)
    browser.save_screenshot(str(artifacts_dir / "live-drag-pug.png"))
