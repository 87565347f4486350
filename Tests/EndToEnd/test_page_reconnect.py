"""Sessions come back: a refresh in the middle of a slider drag resumes the same server session with the
dragged value; a server that goes away and returns is reconnected to by itself, saying so, and the edited
notebook is restored on the new session."""
import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import start_depthbook, stop_depthbook
from page_support import (nudge_slider, cell_with_param, connection_text, open_notebook, screenshot, settled_frame, slider,
                          slider_value, stored_tab, wait_for)


def test_refresh_mid_drag_resumes_session(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    session_before = stored_tab(browser)["session"]
    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
    start_value = slider_value(browser, mask, "percentile")

    # Press on the slider and drag left, and refresh while the button is still down.
    drag = ActionChains(browser, duration=50)
    drag.click_and_hold(control).move_by_offset(-30, 0).pause(0.2).move_by_offset(-30, 0).pause(0.5).perform()
    dragged = slider_value(browser, mask, "percentile")
    assert dragged != start_value, "the drag did not move the slider"
    _, dragged_bytes = settled_frame(browser, mask, newer_than=first.seq)
    browser.refresh()

    wait_for("the page to resume the session", lambda: "resumed" in connection_text(browser))
    assert stored_tab(browser)["session"] == session_before, "the refresh started a new session"
    wait_for("the dragged value to come back", lambda: slider_value(browser, mask, "percentile") == dragged)
    _, resumed_bytes = settled_frame(browser, mask)
    assert resumed_bytes == dragged_bytes, "after the refresh the server renders something other than the dragged value"
    screenshot(browser, artifacts_dir, "refresh-mid-drag")


def test_lost_server_reconnects_and_restores(depthbook_bin, tmp_path, browser, artifacts_dir):
    server = start_depthbook(depthbook_bin, tmp_path / "data", tmp_path / "serve.log")
    try:
        open_notebook(browser, server.base_url, "depth-threshold")
        mask = cell_with_param(browser, "percentile")
        first, _ = settled_frame(browser, mask)
        nudge_slider(browser, mask, "percentile", Keys.ARROW_LEFT, 7)
        edited = slider_value(browser, mask, "percentile")
        settled_frame(browser, mask, newer_than=first.seq)

        stop_depthbook(server)
        wait_for("the page to say the connection was lost", lambda: "lost" in connection_text(browser).lower())
        # It counts down to the next try (never more than 2 s away) and offers to try at once.
        wait_for("a countdown", lambda: re.search(r"Reconnecting in [12] s", connection_text(browser)))
        assert browser.find_elements(By.CSS_SELECTOR, "db-toolbar button.retry-now"), "no 'Retry now'"
        screenshot(browser, artifacts_dir, "connection-lost")
        server = start_depthbook(depthbook_bin, tmp_path / "data", tmp_path / "serve.log", port=server.port)
        for button in browser.find_elements(By.CSS_SELECTOR, "db-toolbar button.retry-now"):
            try:
                button.click()
            except Exception:  # it may have reconnected (and the button gone) already
                pass

        wait_for("the page to say it reconnected", lambda: "Reconnected" in connection_text(browser))
        assert slider_value(browser, mask, "percentile") == edited, "the edit was lost with the server"
        settled_frame(browser, mask)
        screenshot(browser, artifacts_dir, "reconnected")
    finally:
        stop_depthbook(server)
