"""A shared link opens on its result: on a phone the first screen shows the recipe's output, live, above the
recipe, with the name of the photo it was made on (the sender's file name, which the recipient's browser
never saw), and the photo cell says it too."""
from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR
from page_support import drop_files, open_notebook, photo_facts, save_and_share, screenshot, settled_frame, wait_for

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def phone(browser_factory):
    driver = browser_factory(500, 844)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    return driver


def test_a_shared_link_opens_on_the_result_with_the_photos_name(depthbook_server, browser_factory, artifacts_dir):
    author = browser_factory()
    open_notebook(author, depthbook_server.base_url, "depth-threshold")
    drop_files(author, [(PUG.name, PUG.read_bytes(), "image/heic")])
    wait_for("the dropped photo to open", lambda: photo_facts(author).get("width") == 4032)
    settled_frame(author, "result")
    saved = save_and_share(author)

    reader = phone(browser_factory)
    reader.get(f"{depthbook_server.base_url}/n/{saved}")
    shown = wait_for("the result at the top", lambda: reader.execute_script("""
        const p = document.querySelector('db-result db-preview[data-reference=result]');
        if (!p || p.dataset.state !== 'ready') return null;
        const r = p.querySelector('img').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: r.height, scrollY, innerHeight};"""))
    assert shown["scrollY"] == 0 and shown["top"] < shown["innerHeight"] / 2, shown
    visible = min(shown["bottom"], shown["innerHeight"]) - shown["top"]
    assert visible >= 0.3 * shown["innerHeight"], f"only {visible:.0f} px of the result is on the first screen: {shown}"
    caption = reader.find_element(By.CSS_SELECTOR, "db-result .result-caption").text
    assert PUG.name in caption, caption
    # Read in one script: the photo cell is attached again if the person matte arrives meanwhile.
    wait_for("the photo cell's title", lambda: reader.execute_script(
        "const t = document.querySelector('db-cell[data-kind=photo] .cell-title'); return t ? t.innerText : ''") == f"Photo: {PUG.name}")
    screenshot(reader, artifacts_dir, "shared-link-phone")
