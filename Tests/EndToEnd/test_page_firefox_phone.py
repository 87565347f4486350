"""At a phone's 390×844 in Firefox ESR (WebDriver BiDi; issue 39, as test_page_phone.py does in Chromium): the
page and its toolbar fit without scrolling sideways (the bar wraps to a second row), and after Save a visible
line says it worked and holds the link, which the bar has no room to show."""
from __future__ import annotations

from firefox_page import mouse_click, open_in_firefox
from page_support import settled_frame, wait_for


def test_the_toolbar_fits_a_phone_and_save_shows_its_link_in_firefox(depthbook_server, firefox_factory, artifacts_dir):
    phone = firefox_factory(390, 844)
    open_in_firefox(phone, f"{depthbook_server.base_url}/n/depth-threshold")
    settled_frame(phone, "result")
    inner, page = phone.execute_script("return [innerWidth, document.scrollingElement.scrollWidth]")
    assert inner == 390 and page <= inner, f"{page} px of page in a {inner} px window"
    scroll, client = phone.execute_script("const row = document.querySelector('.toolbar-row'); return [row.scrollWidth, row.clientWidth]")
    assert scroll <= client, f"the toolbar is {scroll} px wide in {client} px"
    for name in ("run-all", "save-share"):
        left, right = phone.execute_script(
            "const r = document.querySelector(`.toolbar-row .${arguments[0]}`).getBoundingClientRect(); return [r.left, r.right]", name)
        assert 0 <= left and right <= inner, f"{name} at {left}–{right} px in a {inner} px window"

    mouse_click(phone, ".toolbar-row .save-share")
    notice = wait_for("the saved line", lambda: phone.execute_script("""
        const notice = [...document.querySelectorAll('.saved-notice')].find((e) => e.checkVisibility());
        const link = notice?.querySelector('a.saved-link');
        return notice && {text: notice.textContent.trim(), href: link?.href ?? '', linkShown: !!link?.checkVisibility()};"""))
    assert "/n/" in notice["href"] and notice["linkShown"], notice
    assert notice["text"].startswith("Saved"), notice
    assert phone.execute_script("return document.scrollingElement.scrollWidth") <= inner
    phone.save_screenshot(str(artifacts_dir / "firefox-phone-saved.png"))
