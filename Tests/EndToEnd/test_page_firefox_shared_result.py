"""A shared link opens on its result in Firefox ESR (WebDriver BiDi): the pug chosen in one Firefox's photo cell
(BiDi's input.setFiles) and saved; the link opened in another Firefox at a phone's 390×844 shows the recipe's
output, live, on its first screen above the recipe, with the pug's file name (which the second browser never
saw) in its caption and the photo cell's title."""
from __future__ import annotations

from conftest import PHOTOS_DIR
from firefox_page import PHOTO_INPUT, mouse_click, open_in_firefox, text_of
from page_support import SHARE_PATH, photo_facts, settled_frame, wait_for

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def test_a_shared_link_opens_on_the_result_in_firefox(depthbook_server, firefox_factory, artifacts_dir):
    author = firefox_factory()
    open_in_firefox(author, f"{depthbook_server.base_url}/n/depth-threshold")
    author.set_files(PHOTO_INPUT, [str(PUG)])
    wait_for("the pug to open", lambda: photo_facts(author).get("width") == 4032)
    settled_frame(author, "result")
    before = author.execute_script("return location.href")
    mouse_click(author, "button.save-share")
    url = wait_for("the address bar to show the saved notebook", lambda: (
        href if (href := author.execute_script("return location.href")) != before and SHARE_PATH.search(href) else None))
    assert author.execute_script("return document.querySelector('input.share-link').value") == url
    saved = SHARE_PATH.search(url).group(1)

    reader = firefox_factory(390, 844)
    reader.get(f"{depthbook_server.base_url}/n/{saved}")
    shown = wait_for("the result at the top", lambda: reader.execute_script("""
        const p = document.querySelector('db-result db-preview[data-reference=result]');
        if (!p || p.dataset.state !== 'ready') return null;
        const r = p.querySelector('img').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: r.height, scrollY, innerHeight, innerWidth};"""))
    assert shown["innerWidth"] == 390, shown
    assert shown["scrollY"] == 0 and shown["top"] < shown["innerHeight"] / 2, shown
    visible = min(shown["bottom"], shown["innerHeight"]) - shown["top"]
    assert visible >= 0.3 * shown["innerHeight"], f"only {visible:.0f} px of the result is on the first screen: {shown}"
    caption = text_of(reader, "db-result .result-caption")
    assert caption and PUG.name in caption, caption
    title = text_of(reader, "db-cell[data-kind=photo] .cell-title")
    assert title and title.strip() == f"Photo: {PUG.name}", title
    reader.save_screenshot(str(artifacts_dir / "firefox-shared-link-phone.png"))
