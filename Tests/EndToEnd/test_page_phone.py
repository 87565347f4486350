"""At a phone's 390×844 (issue 39): the toolbar fits without scrolling sideways (it wraps to a second row), and
after Save a visible line says it worked and holds the link, which the bar has no room to show."""
from __future__ import annotations

from selenium.webdriver.common.by import By

from page_support import open_notebook, screenshot, settled_frame, wait_for


def test_the_toolbar_fits_a_phone_and_save_shows_its_link(depthbook_server, browser_factory, artifacts_dir):
    phone = browser_factory(390, 844)
    open_notebook(phone, depthbook_server.base_url, "depth-threshold")
    settled_frame(phone, "result")
    inner = phone.execute_script("return window.innerWidth")
    assert inner == 390, f"the phone's viewport is {inner} px wide"
    page = phone.execute_script("return document.scrollingElement.scrollWidth")
    assert page <= inner, f"{page} px of page in a {inner} px window"
    row = phone.find_element(By.CSS_SELECTOR, ".toolbar-row")
    scroll, client = phone.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth]", row)
    assert scroll <= client, f"the toolbar is {scroll} px wide in {client} px"
    for name in ("run-all", "save-share"):
        button = phone.find_element(By.CSS_SELECTOR, f".toolbar-row .{name}")
        left, right = phone.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]", button)
        assert 0 <= left and right <= inner, f"{name} at {left}–{right} px in a {inner} px window"

    phone.find_element(By.CSS_SELECTOR, ".toolbar-row .save-share").click()
    notice = wait_for("the saved line", lambda: next(iter(
        [e for e in phone.find_elements(By.CSS_SELECTOR, ".saved-notice") if e.is_displayed()]), None))
    link = notice.find_element(By.CSS_SELECTOR, "a.saved-link")
    assert "/n/" in link.get_attribute("href") and link.is_displayed()
    assert notice.text.startswith("Saved")
    assert phone.execute_script("return document.scrollingElement.scrollWidth") <= inner
    screenshot(phone, artifacts_dir, "phone-saved")


def test_the_saved_line_stays_out_of_a_wide_window(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    browser.find_element(By.CSS_SELECTOR, ".toolbar-row .save-share").click()
    wait_for("the link field to hold the link", lambda: "/n/" in browser.find_element(By.CSS_SELECTOR, ".share-link").get_attribute("value"))
    assert not browser.find_element(By.CSS_SELECTOR, ".saved-notice").is_displayed()
