"""A follow link opened in Firefox ESR at a phone's 390×844 (WebDriver BiDi; issue 39): a presenter in Chromium at
1920×1080 turns presenter mode on; its watch link, opened in Firefox, watches, lands on the result (its picture
starts on the first screen, not below the recipe) and follows the presenter's slider with a newer full frame
(how soon is measured by scripts/follow-latency.py, not here)."""
from __future__ import annotations

from selenium.webdriver.common.keys import Keys

from page_support import cell_with_param, connection_text, open_notebook, settled_frame, slider, wait_for
from test_page_presenter import big_screen, present

SEEN_JS = """const p = document.querySelector('db-cell[data-cell=result] db-preview');
    return p?.dataset.state === 'ready' && p.dataset.coarse === 'false' ? p.dataset.bytes + ':' + p.dataset.seq : null;"""


def test_a_follow_link_on_a_phone_in_firefox(depthbook_server, browser_factory, firefox_factory, artifacts_dir):
    presenter = big_screen(browser_factory)
    open_notebook(presenter, depthbook_server.base_url, "depth-threshold")
    settled_frame(presenter, "result")
    present(presenter)
    session = presenter.execute_script("return JSON.parse(sessionStorage.getItem('depthbook.tab')).session")
    assert session

    phone = firefox_factory(390, 844)
    phone.get(f"{depthbook_server.base_url}/n/depth-threshold?watch={session}")
    wait_for("the phone to watch", lambda: "Watching" in connection_text(phone))
    wait_for("the phone's result", lambda: phone.execute_script(
        "return document.querySelector('db-cell[data-cell=result] db-preview')?.dataset.state === 'ready'"))
    where = lambda: phone.execute_script("""
        const top = document.querySelector('db-cell[data-cell=result] db-preview').getBoundingClientRect().top;
        return {top, innerHeight};""")
    wait_for("the result's picture to start on the phone's first screen", lambda: 0 <= (w := where())["top"] < w["innerHeight"], timeout=20)
    phone.save_screenshot(str(artifacts_dir / "firefox-follow-link-phone.png"))

    before = wait_for("the phone's full frame", lambda: phone.execute_script(SEEN_JS))
    control = slider(presenter, cell_with_param(presenter, "percentile"), "percentile")
    presenter.execute_script("arguments[0].focus()", control)
    control.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    wait_for("the phone to follow the presenter's change", lambda: (
        now if (now := phone.execute_script(SEEN_JS)) and now != before else None))
