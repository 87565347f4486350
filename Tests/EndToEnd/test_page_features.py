"""The page's tools, each used in a real browser against the real server: picking a point on the image
(Backdrop's face point, the blend mask's tap threshold, the depth-of-field focus), the before/after split,
the render readout's numbers, arrow keys on a focused slider in presenter mode, the export progress bar,
a missing matte reported in the cell, and a second browser watching the session view-only."""
import json
import math
import re

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from websockets.sync.client import connect

from page_support import (cell_with_param, connection_text, open_notebook, screenshot, settled_frame, slider,
                          slider_value, stored_tab, wait_for)


def server_notebook(base_url: str, session_id: str) -> dict:
    """The notebook as the server holds it for a session, read by a view-only watcher of that session."""
    url = base_url.replace("http://", "ws://") + "/ws"
    with connect(url, compression=None, max_size=None) as socket:
        socket.send(json.dumps({"id": 1, "type": "hello", "protocol": 1, "watch": session_id}))
        while True:
            data = socket.recv(timeout=30)
            if isinstance(data, bytes):  # a watcher is sent the editor's frames too
                continue
            message = json.loads(data)
            if message.get("id") == 1:
                assert message["ok"], message
                return message["result"]["notebook"]


def server_params(base_url: str, session_id: str, cell: str) -> dict:
    cells = server_notebook(base_url, session_id)["cells"]
    return next(c for c in cells if c["id"] == cell).get("params", {})


def click_preview_at(browser, cell: str, fx: float, fy: float) -> None:
    """A real mouse click at (fx, fy) of the cell's preview picture, as fractions of its width and height."""
    image = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] db-preview[data-reference="{cell}"] img')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
    box = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", image)
    ActionChains(browser).move_to_element_with_offset(image, round((fx - 0.5) * box[0]), round((fy - 0.5) * box[1])).click().perform()


@pytest.mark.parametrize("notebook, expect_new_pixels", [
    ("backdrop", False),        # the face point: the sample's face region decides first
    ("blend-mask", True),       # the tap threshold: another spot, another threshold
    ("depth-of-field", False),  # the focus point (used when focusing on a point or rect)
])
def test_picking_a_point_on_the_image(depthbook_server, browser, artifacts_dir, notebook, expect_new_pixels):
    open_notebook(browser, depthbook_server.base_url, notebook)
    cell = cell_with_param(browser, "point")
    before, before_bytes = settled_frame(browser, cell)
    param = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] db-param[data-param="point"]')
    pick = param.find_element(By.CSS_SELECTOR, "button.pick-toggle")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", pick)
    pick.click()
    assert pick.get_attribute("aria-pressed") == "true"
    assert "picking" in browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] db-output').get_attribute("class")

    # A spot in the lower left (background on every sample) rather than the face in the middle.
    click_preview_at(browser, cell, 0.12, 0.8)
    wait_for("the pick mode to end", lambda: pick.get_attribute("aria-pressed") == "false")
    fields = [float(f.get_attribute("value")) for f in param.find_elements(By.CSS_SELECTOR, "input[type=number]")]
    assert math.isclose(fields[0], 0.12, abs_tol=0.01) and math.isclose(fields[1], 0.8, abs_tol=0.01), f"picked {fields}"
    assert not browser.find_elements(By.CSS_SELECTOR, "dialog.zoom-dialog[open]"), "a pick must not open the zoom"

    after, after_bytes = settled_frame(browser, cell, newer_than=before.seq)
    on_server = wait_for("the server's recipe to take the point", lambda: (
        p if (p := server_params(depthbook_server.base_url, stored_tab(browser)["session"], cell).get("point")) is not None
        and math.isclose(p[0], fields[0], abs_tol=1e-6) else None))
    assert math.isclose(on_server[1], fields[1], abs_tol=1e-6), f"the server holds {on_server}, the page shows {fields}"
    if expect_new_pixels:
        assert after_bytes != before_bytes, "tapping another spot did not change the blend mask"
    screenshot(browser, artifacts_dir, f"pick-{notebook}")


def test_before_after_split(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, mask)
    button = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] button.split-toggle')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    split = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-split')
    before = split.find_element(By.CSS_SELECTOR, "db-preview.split-before")
    assert before.get_attribute("data-reference") == "photo.disparity", "the split does not compare against the step's input"
    wait_for("the before frame", lambda: before.get_attribute("data-state") == "ready")
    # The after frame (the cell's own preview) is still shown underneath.
    assert split.find_element(By.CSS_SELECTOR, f'db-preview[data-reference="{mask}"]').get_attribute("data-state") == "ready"

    # The two pictures lie exactly on top of each other, whatever size each frame was rendered at.
    boxes = browser.execute_script(
        "return [...arguments[0].querySelectorAll('.split-stage > db-preview img')].map(i => { const r = i.getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height]; })", split)
    assert len(boxes) == 2 and all(abs(a - b) <= 1 for a, b in zip(*boxes)), f"before and after are not aligned: {boxes}"

    divider = split.find_element(By.CSS_SELECTOR, "input.split-slider")
    assert browser.execute_script("return arguments[0].labels.length", divider) == 1
    clip = lambda: browser.execute_script("return arguments[0].style.clipPath", before)
    assert clip() == "inset(0px 50% 0px 0px)" or clip() == "inset(0 50% 0 0)", clip()
    divider.send_keys(Keys.ARROW_LEFT * 20)
    assert "70%" in clip(), f"moving the divider to 30% clipped {clip()}"
    screenshot(browser, artifacts_dir, "split-view")
    button.click()
    wait_for("the split to close", lambda: not browser.find_elements(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-split'))
    assert browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-preview[data-reference="{mask}"]').get_attribute("data-state") == "ready"


def readout(browser, cell: str) -> dict:
    return browser.execute_script(
        "const r = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-readout`);"
        "return r ? {...r.dataset, text: r.textContent} : null", cell)


def test_readout_shows_render_time_latency_and_cache(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    shown = wait_for("the readout of the shown frame", lambda: (r if (r := readout(browser, mask)) and r.get("seq") == str(first.seq) else None))
    for key in ("renderMs", "latencyMs", "cacheHits", "cacheMisses"):
        value = float(shown[key])
        assert math.isfinite(value) and value >= 0, f"{key} is {shown[key]!r}"
    # The page rounds with toFixed(1) (7.25 -> "7.3"), Python's format half to even (7.25 -> "7.2"): compare numbers.
    shown_render = re.search(r"render (\d+\.\d) ms", shown["text"])
    assert shown_render and abs(float(shown_render.group(1)) - float(shown["renderMs"])) <= 0.05 + 1e-9, shown["text"]
    shown_latency = re.search(r"latency (\d+) ms", shown["text"])
    assert shown_latency and abs(float(shown_latency.group(1)) - float(shown["latencyMs"])) <= 0.5 + 1e-9, shown["text"]
    assert f"cache {shown['cacheHits']} hit" in shown["text"]

    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(Keys.ARROW_LEFT * 4)
    second, _ = settled_frame(browser, mask, newer_than=first.seq)
    again = wait_for("the readout to follow the new frame", lambda: (r if (r := readout(browser, mask)) and r.get("seq") == str(second.seq) else None))
    assert again["text"] != shown["text"], "the readout did not change with the frame"
    # Every render looks its stages up in the cache: each frame counts at least one hit or miss.
    assert float(again["cacheHits"]) + float(again["cacheMisses"]) > 0


def test_arrow_keys_nudge_the_focused_slider_in_presenter_mode(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    browser.find_element(By.TAG_NAME, "body").send_keys("p")
    wait_for("presenter mode", lambda: "presenter" in browser.find_element(By.TAG_NAME, "body").get_attribute("class"))
    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].focus()", control)
    step = float(control.get_attribute("step"))
    start = slider_value(browser, mask, "percentile")
    control.send_keys(Keys.ARROW_RIGHT)
    assert math.isclose(slider_value(browser, mask, "percentile"), start + step), "Right did not nudge one step"
    control.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert math.isclose(slider_value(browser, mask, "percentile"), start - step), "Left did not nudge one step"
    settled_frame(browser, mask, newer_than=first.seq)
    assert "presenter" in browser.find_element(By.TAG_NAME, "body").get_attribute("class"), "arrows left presenter mode"


def test_export_progress_bar_shows_progress(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "wiggle")
    settled_frame(browser, "frame-0")
    bar = browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="frame-0"] db-export')
    # Record what the progress bar shows as it changes (the GIF export reports each rendered frame).
    browser.execute_script("""
        const progress = arguments[0].querySelector('progress');
        window.progressSeen = [];
        new MutationObserver(() => window.progressSeen.push({hidden: progress.hidden, value: progress.getAttribute('value')}))
            .observe(progress, {attributes: true});""", bar)
    button = bar.find_element(By.CSS_SELECTOR, "button[data-format=gif]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    assert all(b.get_attribute("disabled") is not None for b in bar.find_elements(By.CSS_SELECTOR, "button.export-button")), \
        "the export buttons stay enabled during an export"
    link = wait_for("the download link", lambda: bar.find_elements(By.CSS_SELECTOR, ".export-result a[href]"), timeout=300)[0]
    # Named as a person would say it (notebook, cell, photo), not by the server's hash (issue 39).
    name = link.get_attribute("download")
    assert name.endswith(".gif") and " - " in name and not any(c.isdigit() for c in name[-20:-4]), name
    seen = browser.execute_script("return window.progressSeen")
    shown_values = [float(s["value"]) for s in seen if not s["hidden"] and s["value"] is not None]
    assert any(0 < v < 1 for v in shown_values), f"the bar never showed progress between 0 and 1: {seen}"
    assert shown_values == sorted(shown_values), f"the progress went backwards: {shown_values}"
    assert seen[-1]["hidden"], "the progress bar stayed up"


def test_missing_matte_is_reported_in_the_cell(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "makeup")
    settled_frame(browser, "glasses")
    photo = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    sample = photo.find_element(By.CSS_SELECTOR, ".photo-source select")
    sample.send_keys("still-life")
    assert sample.get_attribute("value") == "sample:still-life"
    photo.find_element(By.CSS_SELECTOR, "button.open-photo").click()

    def error_in(cell):
        line = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] .cell-error')
        return line.text if line.is_displayed() and line.text else None
    message = wait_for("the glasses cell to report the missing matte", lambda: error_in("glasses"))
    assert "glasses" in message.lower(), f"the error does not name the missing matte: {message!r}"
    assert "has-error" in browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="glasses"]').get_attribute("class")
    assert browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="glasses"] .cell-error').get_attribute("role") == "alert"
    # A cell that needs no matte renders on the new photo without an error.
    assert error_in("maxcomp") is None
    browser.execute_script("document.querySelector('db-cell[data-cell=\"glasses\"]').scrollIntoView({block: 'start'})")
    screenshot(browser, artifacts_dir, "missing-matte")


def test_a_second_browser_watches_the_session(depthbook_server, browser_factory, artifacts_dir):
    editor = browser_factory()
    open_notebook(editor, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(editor, "percentile")
    first, _ = settled_frame(editor, mask)
    session = stored_tab(editor)["session"]

    watcher = browser_factory()
    watcher.get(f"{depthbook_server.base_url}/n/depth-threshold?watch={session}")
    wait_for("the watcher to say it watches", lambda: "Watching" in connection_text(watcher))
    assert not watcher.find_elements(By.CSS_SELECTOR, "button.cell-remove, db-add-cell, db-export"), "a watcher is offered edits"
    assert not [b.text for b in watcher.find_elements(By.CSS_SELECTOR, "button.run-all, button.save-share") if b.is_displayed()], \
        "a watcher is offered Run all or Save, which the server refuses"
    # What the editor already sees comes with the watcher's hello: no preview waits for the editor's next move.
    wait_for("every preview of the watcher to show the editor's frame", lambda: watcher.execute_script(
        "const p = [...document.querySelectorAll('db-preview')]; return p.length > 0 && p.every((e) => e.dataset.state === 'ready')"),
        timeout=20)
    assert watcher.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] input[type=range]').get_attribute("disabled") is not None

    control = slider(editor, mask, "percentile")
    editor.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(Keys.ARROW_LEFT * 10)
    edited_value = slider_value(editor, mask, "percentile")
    _, editor_bytes = settled_frame(editor, mask, newer_than=first.seq)
    wait_for("the watcher's slider to follow", lambda: slider_value(watcher, mask, "percentile") == edited_value)
    _, watcher_bytes = settled_frame(watcher, mask, newer_than=first.seq)
    assert watcher_bytes == editor_bytes, "the watcher shows another picture than the editor"
    screenshot(watcher, artifacts_dir, "watcher")


def test_an_added_step_renders_and_reads_the_cell_above(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    settled_frame(browser, "recipe")
    before = browser.execute_script("return [...document.querySelectorAll('db-cell')].map(c => c.dataset.cell)")
    slot = browser.find_elements(By.CSS_SELECTOR, "db-add-cell")[-1]
    opener = slot.find_element(By.CSS_SELECTOR, "button.add-cell-open")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", opener)
    opener.click()
    selects = slot.find_elements(By.CSS_SELECTOR, "form select")
    assert selects[0].get_attribute("value") == "step"
    browser.execute_script(
        "const s = arguments[0]; s.value = [...s.options].find(o => o.value === 'exposure').value; s.dispatchEvent(new Event('change'))",
        selects[1])
    slot.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    added = wait_for("the new step", lambda: [c for c in browser.execute_script(
        "return [...document.querySelectorAll('db-cell')].map(c => c.dataset.cell)") if c not in before])
    assert added == ["exposure-1"], added
    card = browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="exposure-1"]')
    assert card.get_attribute("data-kind") == "step"
    # Wired to the nearest image above it, with the catalog's default parameters, and rendered.
    assert card.find_element(By.CSS_SELECTOR, "select.reference-select").get_attribute("value") == "recipe"
    assert card.find_elements(By.CSS_SELECTOR, 'db-param[data-param="ev"] input[type=range]')
    first, _ = settled_frame(browser, "exposure-1")
    control = slider(browser, "exposure-1", "ev")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(Keys.ARROW_RIGHT * 5)
    settled_frame(browser, "exposure-1", newer_than=first.seq)
    assert server_notebook(depthbook_server.base_url, stored_tab(browser)["session"])["cells"][-1]["id"] == "exposure-1"


@pytest.mark.parametrize("notebook", ["depth-threshold", "wiggle"])
def test_no_cell_shows_a_stray_null(depthbook_server, browser, notebook):
    """Nothing the page leaves out of a cell (no loop player, no export options) shows up as the text "null"."""
    open_notebook(browser, depthbook_server.base_url, notebook)
    wait_for("every cell's controls", lambda: browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=step] db-export"))
    stray = browser.execute_script("""
        const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
        const found = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent.trim();
            if (['null', 'undefined', '[object Object]'].includes(text)) found.push(`${node.parentElement.closest('db-cell')?.dataset.cell}: ${text}`);
        }
        return found;""")
    assert stray == [], f"cells show placeholder text: {stray}"
