"""Going back and seeing motion: a notebook resumed with its edits can be reverted to the original; the
Wiggle loop plays in its cell; a loop export has the frame count and width the page asked for."""
from __future__ import annotations

import io
import urllib.request

from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import (nudge_slider, answer_dialog, cell_with_param, connection_text, open_notebook, screenshot, settled_frame,
                          slider_value, wait_for)


def test_a_resumed_edited_notebook_reverts_to_the_original(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    original = slider_value(browser, mask, "percentile")
    revert = browser.find_element(By.CSS_SELECTOR, "db-toolbar button.revert")
    assert not revert.is_displayed(), "Revert is offered before anything changed"
    nudge_slider(browser, mask, "percentile", Keys.ARROW_LEFT, 6)
    edited = slider_value(browser, mask, "percentile")
    assert edited != original
    settled_frame(browser, mask, newer_than=first.seq)

    # Reopening the address resumes the edited session: the edit is there, and so is the way back.
    browser.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the session to resume", lambda: "resumed" in connection_text(browser))
    wait_for("the edited value", lambda: slider_value(browser, mask, "percentile") == edited)
    revert = wait_for("the Revert button", lambda: (b := browser.find_element(By.CSS_SELECTOR, "db-toolbar button.revert")).is_displayed() and b)
    revert.click()
    answer_dialog(browser, "revert")
    wait_for(f"the original value {original}", lambda: slider_value(browser, mask, "percentile") == original)
    wait_for("Revert to go away", lambda: not browser.find_element(By.CSS_SELECTOR, "db-toolbar button.revert").is_displayed())
    settled_frame(browser, mask)


def test_the_wiggle_loop_plays_in_its_cell(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "wiggle")
    settled_frame(browser, "frame-0")
    cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-cell='frame-0']")
    play = cell.find_element(By.CSS_SELECTOR, "db-loop button.loop-play")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", play)
    play.click()
    image = wait_for("the loop to play", lambda: next(iter(cell.find_elements(By.CSS_SELECTOR, "img.loop-image")), None), timeout=120)
    wait_for("the loop's frames to load", lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
    with urllib.request.urlopen(image.get_attribute("src"), timeout=30) as reply:
        gif = Image.open(io.BytesIO(reply.read()))
    assert gif.format == "GIF" and gif.n_frames == 12, (gif.format, gif.n_frames)
    screenshot(browser, artifacts_dir, "wiggle-playing")
    cell.find_element(By.CSS_SELECTOR, "db-loop button.loop-play").click()
    assert not cell.find_elements(By.CSS_SELECTOR, "img.loop-image"), "Stop left the loop playing"


def test_a_loop_export_has_the_frames_and_width_asked_for(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "wiggle")
    settled_frame(browser, "frame-0")
    bar = browser.find_element(By.CSS_SELECTOR, "db-cell[data-cell='frame-0'] db-export")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", bar)
    for name, value in (("frames", "6"), ("width", "200")):
        field = bar.find_element(By.CSS_SELECTOR, f"input.export-{name}")
        field.clear()
        field.send_keys(value)
    bar.find_element(By.CSS_SELECTOR, "button[data-format=gif]").click()
    link = wait_for("the export's link", lambda: next(iter(bar.find_elements(By.CSS_SELECTOR, ".export-result a[href]")), None), timeout=120)
    with urllib.request.urlopen(link.get_attribute("href"), timeout=30) as reply:
        gif = Image.open(io.BytesIO(reply.read()))
    assert (gif.n_frames, gif.width) == (6, 200), (gif.n_frames, gif.size)
