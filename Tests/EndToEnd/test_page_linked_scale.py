"""Linked parameters: Big Head's notebook links the Scale of the scaled subject (`bigger`), its matte
(`newMatte`), the plate behind it (`behind`) and the one-step recipe (`recipe`), so the page shows one Scale
control (the other three show the value they follow; the smaller copy's own slider has a label of its own),
moving it moves all four (at 1.7 the head is no longer clipped by a matte left at 1.3), and one undo puts all
four back. (That the server moves them for any client: StudioSessionTests.)"""
from __future__ import annotations

from selenium.webdriver.common.keys import Keys

from page_support import nudge_slider, open_notebook, screenshot, settled_frame, slider_value, stored_tab, wait_for

LINKED = ("bigger", "newMatte", "behind", "recipe")


def scales(driver) -> list[float]:
    return [slider_value(driver, cell, "scale") for cell in LINKED]


def test_one_scale_moves_the_four_cells(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "big-head")
    first, _ = settled_frame(browser, "result")
    assert scales(browser) == [1.3] * 4
    note = browser.execute_script(
        "return document.querySelector('db-cell[data-cell=bigger] db-param[data-param=scale] .param-linked')?.textContent")
    assert note and "newMatte" in note and "behind" in note, note
    visible = browser.execute_script("""
        return [...document.querySelectorAll('db-cell db-param[data-param=scale]')]
            .filter((p) => p.querySelector('input[type=range]')?.checkVisibility())
            .map((p) => p.closest('db-cell').dataset.cell);""")
    assert sorted(visible) == ["bigger", "smaller"], f"scale sliders shown in {visible}"
    labels = browser.execute_script("""
        return [...document.querySelectorAll('db-cell db-param[data-param=scale]')]
            .filter((p) => p.querySelector('input[type=range]')?.checkVisibility())
            .map((p) => p.querySelector('.param-label').firstChild.textContent);""")
    assert labels.count("Scale") == 1 and "Size of the smaller one" in labels, labels
    followed = browser.execute_script(
        "return document.querySelector('db-cell[data-cell=behind] db-param[data-param=scale] .param-followed')?.textContent")
    assert followed == "1.3", followed

    nudge_slider(browser, "bigger", "scale", Keys.ARROW_RIGHT, 8)
    moved = slider_value(browser, "bigger", "scale")
    assert moved > 1.3
    wait_for("the linked sliders to follow", lambda: scales(browser) == [moved] * 4)
    wait_for("the notebook to hold the new scale in all four cells", lambda: all(
        c.get("params", {}).get("scale") == moved for c in (stored_tab(browser).get("notebook") or {}).get("cells", []) if c["id"] in LINKED))
    settled_frame(browser, "result", newer_than=first.seq)
    assert browser.execute_script(
        "return document.querySelector('db-cell[data-cell=behind] db-param[data-param=scale] .param-followed')?.textContent") == str(moved)
    browser.execute_script("document.querySelector('db-cell[data-cell=result]').scrollIntoView({block: 'start'})")
    screenshot(browser, artifacts_dir, "big-head-linked-scale")

    browser.execute_script("document.querySelector('db-toolbar button.undo').click()")
    wait_for("one undo to put the four back", lambda: scales(browser) == [1.3] * 4)
