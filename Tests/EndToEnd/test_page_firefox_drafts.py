"""Drafts that last in Firefox ESR (WebDriver BiDi): unsaved edits (a cell removed, a value typed) are in the
browser's storage when Firefox quits; Firefox started again on the same profile offers them back when the
notebook opens, applies nothing before it is asked, and restores them on "Restore it"."""
from __future__ import annotations

import json

from firefox_page import click, open_in_firefox, text_of
from page_support import cell_ids, cell_with_param, settled_frame, wait_for


def stored_draft(firefox) -> dict | None:
    raw = firefox.execute_script("return localStorage.getItem('depthbook.draft:depth-threshold')")
    return json.loads(raw) if raw else None


def percentile(firefox, cell: str) -> float:
    return float(firefox.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`).value", cell))


def test_a_draft_outlasts_firefox(depthbook_server, firefox_factory, tmp_path, artifacts_dir):
    url = f"{depthbook_server.base_url}/n/depth-threshold"
    profile = tmp_path / "firefox-profile"
    first = firefox_factory(profile=profile)
    open_in_firefox(first, url)
    mask = cell_with_param(first, "percentile")
    settled_frame(first, mask)
    click(first, "db-cell[data-cell='about-apply'] .cell-menu summary")
    click(first, "db-cell[data-cell='about-apply'] button.cell-remove")
    wait_for("the note to go", lambda: "about-apply" not in cell_ids(first))
    # A value typed over the number field's text and entered. (Enter, not Tab: headless Firefox's window never
    # has the system's focus, so leaving a field fires no blur and no change; Enter commits it all the same.)
    first.execute_script("""const f = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=number]`);
        f.scrollIntoView({block: 'center'}); f.focus(); f.select();""", mask)
    first.press("3", "3", "Enter")
    wait_for("the draft in localStorage", lambda: (d := stored_draft(first)) and any(
        c.get("params", {}).get("percentile") == 33 for c in d["notebook"]["cells"]))
    edited_ids = cell_ids(first)
    first.quit()
    assert first.process.returncode is not None

    second = firefox_factory(profile=profile)
    open_in_firefox(second, url)
    banner = wait_for("the offer of the draft", lambda: second.execute_script(
        "return document.querySelector('db-draft:not([hidden])')?.textContent ?? null"))
    assert "unsaved draft" in banner, banner
    assert "about-apply" in cell_ids(second), "the draft was applied before it was asked for"
    second.save_screenshot(str(artifacts_dir / "firefox-draft-offered.png"))
    click(second, "db-draft button.draft-restore")
    wait_for("the draft's cells", lambda: cell_ids(second) == edited_ids)
    wait_for("the draft's value", lambda: percentile(second, mask) == 33)
    settled_frame(second, mask)
    assert "Unsaved" in (text_of(second, ".save-state") or "")
