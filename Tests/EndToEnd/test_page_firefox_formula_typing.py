"""Typing a formula at a person's pace in Firefox ESR (WebDriver BiDi; issue 39, as
test_typing_a_formula_keeps_the_field_and_the_page_where_they_are does in Chromium): every prefix that parses is
adopted while the keys arrive one by one with pauses, and none of that takes the field's focus, scrolls the
page or lets a typed key reach the page's shortcuts (the "p" of "disparity" once turned presenter mode on); the
line renders with its new slider, and the burst is one step to undo."""
from __future__ import annotations

import time

from firefox_page import click, mouse_click, open_in_firefox
from page_support import settled_frame, stored_tab, wait_for

CELL = "darkenFormula"
LINE = f"db-cell[data-cell={CELL}] input.formula-line"
CONTROL, DELETE = "\ue009", "\ue017"
TEXT = "image * mix(0.3, 1, smoothstep(0.2, $edge(0..1 = 0.6), disparity))"
PAUSES = ("image", "image * mix(0.3, 1,", "image * mix(0.3, 1, smoothstep(0.2, $edge(0..1 = 0.6)")


def stored_formula(firefox) -> str | None:
    return next(c for c in stored_tab(firefox)["notebook"]["cells"] if c["id"] == CELL).get("formula")


def test_typing_a_formula_in_firefox(depthbook_server, firefox, artifacts_dir):
    open_in_firefox(firefox, f"{depthbook_server.base_url}/n/formulas")
    settled_frame(firefox, CELL)
    original = firefox.execute_script("return document.querySelector(arguments[0]).value", LINE)
    mouse_click(firefox, LINE)
    firefox.command("input.performActions", {"context": firefox.context, "actions": [{"type": "key", "id": "keyboard", "actions": [
        {"type": "keyDown", "value": CONTROL}, {"type": "keyDown", "value": "a"}, {"type": "keyUp", "value": "a"},
        {"type": "keyUp", "value": CONTROL}, {"type": "keyDown", "value": DELETE}, {"type": "keyUp", "value": DELETE}]}]})
    firefox.command("input.releaseActions", {"context": firefox.context})
    scroll_before = firefox.execute_script("return scrollY")
    adopted, presenter_seen = set(), False
    for index, key in enumerate(TEXT):
        firefox.press(key)
        time.sleep(0.1)  # ten keys a second
        presenter_seen |= firefox.execute_script("return document.body.classList.contains('presenter')")
        if TEXT[: index + 1] in PAUSES:  # a person thinking, past the check's delay
            time.sleep(0.6)
            adopted.add(stored_formula(firefox))
    wait_for("the whole line adopted", lambda: stored_formula(firefox) == TEXT)
    firefox.save_screenshot(str(artifacts_dir / "firefox-formula-typed.png"))
    assert "image" in adopted, f"no prefix was adopted while typing: {adopted}"
    assert firefox.execute_script("return document.querySelector(arguments[0]).value", LINE) == TEXT
    assert firefox.execute_script("return document.activeElement === document.querySelector(arguments[0])", LINE), "the field lost its focus"
    assert not presenter_seen, "a typed key reached the shortcuts"
    moved = abs(firefox.execute_script("return scrollY") - scroll_before)
    assert moved < 50, f"the page moved {moved} px while typing"
    wait_for("the edge slider", lambda: firefox.execute_script(
        "return !!document.querySelector(`db-cell[data-cell=${arguments[0]}] db-param[data-param=edge] input[type=range]`)", CELL))
    settled_frame(firefox, CELL)

    # The burst (every prefix adopted on the way) is one step: one undo brings back the line as it was.
    click(firefox, "db-toolbar button.undo")
    wait_for("one undo to bring back the line before the typing", lambda: stored_formula(firefox) == original)
    wait_for("the field to show it", lambda: firefox.execute_script("return document.querySelector(arguments[0]).value", LINE) == original)
