"""A formula cell in the page (issue 28): a line is typed, an error shows at its position and nothing renders;
the corrected line's slider appears, dragging it changes the picture, and a shared link reopens the formula
with its value elsewhere."""
from __future__ import annotations

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import (nudge_slider, open_notebook, save_and_share, screenshot, settled_frame, slider_value,
                          stored_tab, wait_for)

CELL = "darkenFormula"


def formula_line(driver):
    return driver.find_element(By.CSS_SELECTOR, f"db-cell[data-cell={CELL}] input.formula-line")


def type_line(driver, text: str) -> None:
    line = formula_line(driver)
    line.send_keys(Keys.CONTROL, "a")
    line.send_keys(text)


def test_type_a_formula_see_its_slider_drag_it_and_share_it(depthbook_server, browser_factory, artifacts_dir):
    browser = browser_factory()
    open_notebook(browser, depthbook_server.base_url, "formulas")
    first, _ = settled_frame(browser, CELL)

    # A misspelt name: the error points at it, and the notebook keeps its working line.
    type_line(browser, "image * pow(dispariti, $power(0..4 = 2))")
    error = wait_for("the error under the line", lambda: browser.execute_script(
        f"const e = document.querySelector('db-cell[data-cell={CELL}] .formula-error'); return e && !e.hidden ? e.dataset.position : null"))
    assert int(error) == len("image * pow(")
    assert "dispariti" in browser.find_element(By.CSS_SELECTOR, f"db-cell[data-cell={CELL}] .formula-error").text
    screenshot(browser, artifacts_dir, "formula-error")
    kept = next(c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == CELL)["formula"]
    assert "dispariti" not in kept

    # The corrected line is adopted and its slider appears.
    type_line(browser, "image * pow(disparity, $power(0..4 = 2))")
    wait_for("the notebook to hold the new line", lambda: next(
        c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == CELL).get("formula") == "image * pow(disparity, $power(0..4 = 2))")
    wait_for("the power slider", lambda: browser.find_elements(By.CSS_SELECTOR, f"db-cell[data-cell={CELL}] db-param[data-param=power]"))
    assert slider_value(browser, CELL, "power") == 2
    adopted, before = settled_frame(browser, CELL, newer_than=first.seq)

    nudge_slider(browser, CELL, "power", Keys.ARROW_RIGHT, 10)
    moved = slider_value(browser, CELL, "power")
    assert moved > 2
    _, after = settled_frame(browser, CELL, newer_than=adopted.seq)
    assert after != before, "the picture did not follow the formula's slider"
    screenshot(browser, artifacts_dir, "formula-slider")

    saved = save_and_share(browser)
    other = browser_factory()
    other.get(f"{depthbook_server.base_url}/n/{saved}")
    wait_for("the shared formula", lambda: other.find_elements(By.CSS_SELECTOR, f"db-cell[data-cell={CELL}] db-param[data-param=power]"))
    assert formula_line(other).get_attribute("value") == "image * pow(disparity, $power(0..4 = 2))"
    wait_for("the shared value", lambda: slider_value(other, CELL, "power") == moved)


def test_typing_a_formula_keeps_the_field_and_the_page_where_they_are(depthbook_server, browser_factory, artifacts_dir):
    """Issue 39: typed at a person's pace, every prefix that parses is adopted (about 250 ms after it was typed),
    and none of that may take the field's focus, move the page, or send the rest of the typing to the page's
    shortcuts (the "p" of "disparity" once turned presenter mode on); and the burst is one step to undo."""
    import time

    browser = browser_factory()
    open_notebook(browser, depthbook_server.base_url, "formulas")
    settled_frame(browser, CELL)
    line = formula_line(browser)
    original = line.get_attribute("value")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", line)
    line.click()
    line.send_keys(Keys.CONTROL, "a")
    line.send_keys(Keys.DELETE)
    scroll_before = browser.execute_script("return window.scrollY")
    text = "image * mix(0.3, 1, smoothstep(0.2, $edge(0..1 = 0.6), disparity))"
    adopted_prefixes = set()
    presenter_seen = False
    for index, key in enumerate(text):
        line.send_keys(key)
        time.sleep(0.1)  # ten keys a second
        presenter_seen |= browser.execute_script("return document.body.classList.contains('presenter')")
        # A person thinking: pauses past the check's delay, right after "image" (which parses and is adopted).
        if text[: index + 1] in ("image", "image * mix(0.3, 1,", "image * mix(0.3, 1, smoothstep(0.2, $edge(0..1 = 0.6)"):
            time.sleep(0.6)
            stored = next(c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == CELL).get("formula")
            adopted_prefixes.add(stored)
    wait_for("the whole line adopted", lambda: next(
        c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == CELL).get("formula") == text)
    screenshot(browser, artifacts_dir, "formula-typed")
    assert "image" in adopted_prefixes, f"no prefix was adopted while typing: {adopted_prefixes}"
    still = formula_line(browser)
    assert still.get_attribute("value") == text
    assert browser.execute_script("return document.activeElement === arguments[0]", still), "the field lost its focus"
    assert not presenter_seen, "a typed key reached the shortcuts"
    moved = abs(browser.execute_script("return window.scrollY") - scroll_before)
    assert moved < 50, f"the page moved {moved} px while typing"
    wait_for("the edge slider", lambda: browser.find_elements(By.CSS_SELECTOR, f"db-cell[data-cell={CELL}] db-param[data-param=edge]"))
    settled_frame(browser, CELL)

    # The burst (every prefix adopted on the way) is one step: one undo brings back the line as it was.
    browser.execute_script("document.querySelector('db-toolbar button.undo').click()")
    wait_for("one undo to bring back the line before the typing", lambda: next(
        c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == CELL).get("formula") == original)
    wait_for("the field to show it", lambda: formula_line(browser).get_attribute("value") == original)


def test_what_a_change_rerenders_follows_the_formulas_references(depthbook_server, browser_factory):
    """The page keeps no graph: a formula that stops naming the mask stops re-rendering when the mask's slider
    moves (and started with it), because the server's graph, sent with the edited notebook, says so."""
    browser = browser_factory()
    open_notebook(browser, depthbook_server.base_url, "formulas")
    reading, _ = settled_frame(browser, "noirFormula")
    nudge_slider(browser, "mask", "percentile", Keys.ARROW_RIGHT, 5)
    masked, _ = settled_frame(browser, "mask")
    followed, _ = settled_frame(browser, "noirFormula", newer_than=reading.seq)
    assert followed.seq == masked.seq, "a change to the mask re-renders the formula that reads it, under the same seq"

    line = browser.find_element(By.CSS_SELECTOR, "db-cell[data-cell=noirFormula] input.formula-line")
    line.send_keys(Keys.CONTROL, "a")
    line.send_keys("dark")
    wait_for("the notebook to hold the new line", lambda: next(
        c for c in stored_tab(browser)["notebook"]["cells"] if c["id"] == "noirFormula").get("formula") == "dark")
    wait_for("the server's graph without the mask's reader", lambda: browser.execute_script(
        "return document.querySelector('db-notebook').session.graph.cells.mask.dependents.join(',')") == "")
    apart, _ = settled_frame(browser, "noirFormula", newer_than=followed.seq)

    nudge_slider(browser, "mask", "percentile", Keys.ARROW_RIGHT, 5)
    settled_frame(browser, "mask", newer_than=masked.seq)
    time.sleep(1.0)  # room for a frame that should not come
    now, _ = settled_frame(browser, "noirFormula")
    assert now.seq == apart.seq, "the formula no longer reads the mask, yet moving the mask re-rendered it"
