"""Second thoughts: Ctrl+Z and Shift+Ctrl+Z undo and redo every notebook edit (a slider's drag, a typed value,
cells removed or added), and undo brings back the exact earlier picture; removing a cell others read asks
first, naming them; unsaved edits outlast the tab: a browser restarted on the same profile offers them back."""
from __future__ import annotations

import json
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import (answer_dialog, cell_ids, cell_with_param, connection_text, nudge_slider, open_notebook,
                          screenshot, settled_frame, slider, slider_value, wait_for)


def number_field(driver, cell: str, param: str):
    return driver.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] db-param[data-param="{param}"] input[type=number]')


def remove_cell(driver, cell: str) -> None:
    """Remove cell, from the cell's actions menu (clicked in place: previews loading above move the page)."""
    driver.execute_script("""const card = document.querySelector(`db-cell[data-cell="${arguments[0]}"]`);
        card.scrollIntoView({block: 'center'}); card.querySelector('.cell-menu summary').click();
        card.querySelector('button.cell-remove').click();""", cell)


def type_value(driver, field, text: str) -> None:
    """Types over the field's value and leaves it, as a person would (Selenium's clear() fires a change of its own)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text, Keys.TAB)


def test_undo_restores_the_earlier_frame_and_redo_the_later(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, first_bytes = settled_frame(browser, mask)
    # Leave the photo's choice for a value of our own, so every step below is a number.
    type_value(browser, number_field(browser, mask, "percentile"), "40")
    at_40, bytes_40 = settled_frame(browser, mask, newer_than=first.seq)

    nudge_slider(browser, mask, "percentile", Keys.ARROW_RIGHT, 12)
    moved = slider_value(browser, mask, "percentile")
    later, later_bytes = settled_frame(browser, mask, newer_than=at_40.seq)
    assert later_bytes != bytes_40

    # One undo takes back the whole run of key presses: the slider, its number and the picture are 40's again.
    slider(browser, mask, "percentile").send_keys(Keys.CONTROL, "z")
    wait_for("the slider back at 40", lambda: slider_value(browser, mask, "percentile") == 40)
    assert number_field(browser, mask, "percentile").get_attribute("value") == "40"
    undone, undone_bytes = settled_frame(browser, mask, newer_than=later.seq)
    assert undone_bytes == bytes_40, "undo did not bring back the picture the earlier value made"

    slider(browser, mask, "percentile").send_keys(Keys.CONTROL, Keys.SHIFT, "z")
    wait_for("the slider back where it was moved", lambda: slider_value(browser, mask, "percentile") == moved)
    _, redone_bytes = settled_frame(browser, mask, newer_than=undone.seq)
    assert redone_bytes == later_bytes, "redo did not bring back the later picture"

    # Typed into the number field, then Ctrl+Z in that field: the whole control goes back, not just its text.
    type_value(browser, number_field(browser, mask, "percentile"), "70")
    typed, _ = settled_frame(browser, mask, newer_than=undone.seq)
    number_field(browser, mask, "percentile").send_keys(Keys.CONTROL, "z")
    wait_for("the slider back after undo in the number field", lambda: slider_value(browser, mask, "percentile") == moved)
    assert float(number_field(browser, mask, "percentile").get_attribute("value")) == moved
    _, back_bytes = settled_frame(browser, mask, newer_than=typed.seq)
    assert back_bytes == later_bytes
    # The toolbar's buttons do the same and say what they would undo.
    undo = browser.find_element(By.CSS_SELECTOR, "db-toolbar button.undo")
    assert "Percentile of mask" in undo.get_attribute("title"), undo.get_attribute("title")
    screenshot(browser, artifacts_dir, "undo-toolbar")


def test_removing_a_cell_others_read_asks_and_undo_brings_them_back(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    before = cell_ids(browser)
    title = {cell: browser.find_element(By.CSS_SELECTOR, f"db-cell[data-cell={cell}] .cell-title").text
             for cell in ("noir", "brighter", "result")}
    remove_cell(browser, "noir")
    question = answer_dialog(browser, "remove")
    # In the cells' titles, as the page shows them, not their ids (issue 39).
    assert f"“{title['brighter']}” reads “{title['noir']}”" in question and title["result"] in question, question
    gone = wait_for("the cells to go", lambda: (ids := cell_ids(browser)) != before and ids)
    assert "noir" not in gone and "brighter" not in gone and "result" not in gone, gone
    assert "Removed" in connection_text(browser)

    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "z")
    wait_for("every cell back in its place", lambda: cell_ids(browser) == before)
    settled_frame(browser, "result")

    # A plain cell goes at once; redo and undo move it back and forth.
    remove_cell(browser, "about-apply")
    wait_for("the note to go", lambda: "about-apply" not in cell_ids(browser))
    browser.find_element(By.CSS_SELECTOR, "db-toolbar button.undo").click()
    wait_for("the note back", lambda: cell_ids(browser) == before)
    browser.find_element(By.CSS_SELECTOR, "db-toolbar button.redo").click()
    wait_for("the note gone again", lambda: "about-apply" not in cell_ids(browser))


def stored_draft(driver) -> dict | None:
    raw = driver.execute_script("return localStorage.getItem('depthbook.draft:depth-threshold')")
    return json.loads(raw) if raw else None


def test_a_draft_outlasts_the_browser(depthbook_server, browser_factory, tmp_path, artifacts_dir):
    profile = ("--user-data-dir=" + str(tmp_path / "profile"),)
    first = browser_factory(extra=profile)
    open_notebook(first, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(first, "percentile")
    settled_frame(first, mask)
    # Edits of every kind: a cell removed, a value typed.
    remove_cell(first, "about-apply")
    wait_for("the note to go", lambda: "about-apply" not in cell_ids(first))
    type_value(first, number_field(first, mask, "percentile"), "33")
    wait_for("the draft in localStorage", lambda: (d := stored_draft(first)) and any(
        c.get("params", {}).get("percentile") == 33 for c in d["notebook"]["cells"]))
    edited_ids = cell_ids(first)
    first.quit()

    second = browser_factory(extra=profile)
    second.get(f"{depthbook_server.base_url}/n/depth-threshold")
    banner = wait_for("the offer of the draft", lambda: next(iter(second.find_elements(By.CSS_SELECTOR, "db-draft:not([hidden])")), None))
    assert "unsaved draft" in banner.text, banner.text
    assert "about-apply" in cell_ids(second), "the draft was applied before it was asked for"
    screenshot(second, artifacts_dir, "draft-offered")
    banner.find_element(By.CSS_SELECTOR, "button.draft-restore").click()
    wait_for("the draft's cells", lambda: cell_ids(second) == edited_ids)
    wait_for("the draft's value", lambda: slider_value(second, mask, "percentile") == 33)
    settled_frame(second, mask)
    assert "Unsaved" in second.find_element(By.CSS_SELECTOR, ".save-state").text
