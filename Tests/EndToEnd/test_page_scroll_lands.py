"""Scrolling to a slider far down a notebook lands on it and stays: cells out of view skip layout and stand in at
a placeholder height (`content-visibility: auto`), and before a cell's first picture laid it out once, the cells
above a slider grew to their pictures after the scroll and carried it off screen (Big Head's Scale ended 600 px
below the window, and a drag there moved nothing)."""
from __future__ import annotations

import time

from page_support import open_notebook, settled_frame, wait_for


def test_a_slider_scrolled_into_view_stays_in_view(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "big-head")
    settled_frame(browser, "result")
    # Every preview has its picture before the scroll, as after a photo opens and the page is left to settle.
    wait_for("every preview to show a picture", lambda: browser.execute_script(
        "return [...document.querySelectorAll('db-preview')].every((p) => p.dataset.state === 'ready')"))
    browser.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    slider = "db-cell[data-cell=bigger] db-param[data-param=scale] input[type=range]"
    browser.execute_script(f"document.querySelector('{slider}').scrollIntoView({{block: 'center'}})")
    time.sleep(1.0)
    top, bottom, height = browser.execute_script(
        f"const b = document.querySelector('{slider}').getBoundingClientRect(); return [b.top, b.bottom, innerHeight]")
    assert 0 <= top and bottom <= height, f"the slider is at {top}..{bottom} px, the window {height} px high"
    at = browser.execute_script(
        f"const b = document.querySelector('{slider}').getBoundingClientRect();"
        "return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)?.closest('db-cell')?.dataset.cell")
    assert at == "bigger", at
