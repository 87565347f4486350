"""Big Head's linked Scale in Firefox ESR (WebDriver BiDi): the Scale of `bigger` moved by key presses moves the
Scale of `newMatte`, `behind` and `recipe` with it, the notebook the page holds says so in all four cells, the
result renders anew, and one undo puts all four back."""
from __future__ import annotations

from firefox_page import click, nudge, open_in_firefox
from page_support import settled_frame, stored_tab, wait_for

LINKED = ("bigger", "newMatte", "behind", "recipe")


def scales(firefox) -> list[float]:
    return [float(firefox.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=scale] input[type=range]`).value", cell))
        for cell in LINKED]


def test_one_scale_moves_the_four_cells_in_firefox(depthbook_server, firefox, artifacts_dir):
    open_in_firefox(firefox, f"{depthbook_server.base_url}/n/big-head")
    first, _ = settled_frame(firefox, "result")
    assert scales(firefox) == [1.3] * 4
    note = firefox.execute_script(
        "return document.querySelector('db-cell[data-cell=bigger] db-param[data-param=scale] .param-linked')?.textContent")
    assert note and "newMatte" in note and "behind" in note, note

    nudge(firefox, "bigger", "scale", "ArrowRight", 8)
    moved = scales(firefox)[0]
    assert moved > 1.3
    wait_for("the linked sliders to follow", lambda: scales(firefox) == [moved] * 4)
    wait_for("the notebook to hold the new scale in all four cells", lambda: all(
        c.get("params", {}).get("scale") == moved for c in (stored_tab(firefox).get("notebook") or {}).get("cells", []) if c["id"] in LINKED))
    settled_frame(firefox, "result", newer_than=first.seq)
    firefox.execute_script("document.querySelector('db-cell[data-cell=result]').scrollIntoView({block: 'start'})")
    firefox.save_screenshot(str(artifacts_dir / "firefox-big-head-linked-scale.png"))

    click(firefox, "db-toolbar button.undo")
    wait_for("one undo to put the four back", lambda: scales(firefox) == [1.3] * 4)
