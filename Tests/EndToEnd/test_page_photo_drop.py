"""Your own photo on the page: a file dropped anywhere opens (a synthetic DataTransfer holding the real file, as
a drag from the desktop delivers it), the photo cell names it, another notebook opens on it, and a Depthbook
export dropped back brings its recipe with it, a moved slider included, after asking, on its original photo."""
from __future__ import annotations

import time

from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR
from page_support import (answer_dialog, cell_with_param, drop_files, open_notebook, photo_facts, photo_name, screenshot,
                          settled_frame, slider_value, wait_for)
from test_server_support import Server, depth_threshold_export

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def test_a_dropped_photo_opens_and_stays_for_the_next_notebook(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    drop_files(browser, [(PUG.name, PUG.read_bytes(), "image/heic")])
    wait_for("the dropped photo to open", lambda: photo_facts(browser).get("width") == 4032)
    wait_for("the photo cell to name the file", lambda: photo_name(browser) == PUG.name)
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, mask)
    screenshot(browser, artifacts_dir, "dropped-photo")

    # Another notebook from the toolbar: it opens on the same photo, named the same way.
    picker = browser.find_element(By.CSS_SELECTOR, "db-toolbar select")
    picker.send_keys("Darken")
    browser.find_element(By.XPATH, "//db-toolbar//button[normalize-space()='Open']").click()
    wait_for("the darken notebook", lambda: "/n/darken" in browser.current_url)
    wait_for("the kept photo", lambda: photo_facts(browser).get("width") == 4032)
    wait_for("its name in the photo cell", lambda: photo_name(browser) == PUG.name)
    # Read in one script: the photo cell is attached again when the person matte arrives in the background.
    wait_for("the photo among your recent ones", lambda: PUG.name in recent_photos(browser))


def recent_photos(driver) -> list[str]:
    return driver.execute_script("""
        return [...document.querySelectorAll("db-cell[data-kind=photo] select.photo-choice optgroup[label='Your recent photos'] option")]
            .map(o => o.textContent.trim());""")


def test_a_dropped_export_restores_its_recipe(depthbook_server, browser, artifacts_dir):
    # An export made elsewhere: the depth-threshold recipe with its cut moved to keep 23 %.
    jpeg = depth_threshold_export(Server(depthbook_server.process, depthbook_server.port, depthbook_server.data_dir), 23)

    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask_id = cell_with_param(browser, "percentile")
    assert slider_value(browser, mask_id, "percentile") != 23
    drop_files(browser, [("depth-threshold-result.jpg", jpeg, "image/jpeg")])
    question = answer_dialog(browser, "recipe")
    assert "recipe" in question.lower() and "depth-threshold-result.jpg" in question
    wait_for("the restored cut", lambda: slider_value(browser, mask_id, "percentile") == 23)
    settled_frame(browser, mask_id)
    # The recipe runs on the photo it was made on, not on the export (whose pixels it already changed).
    assert photo_facts(browser).get("source") == {"sample": "portrait"}, photo_facts(browser).get("source")
    assert photo_name(browser) == "Portrait (indoor)"
    screenshot(browser, artifacts_dir, "restored-recipe")


def thumbnails(driver) -> dict[str, tuple[str, int, int]]:
    return driver.execute_script("""
        const out = {};
        for (const card of document.querySelectorAll('db-start li.start-card')) {
            const thumb = card.querySelector('.start-thumb'), img = thumb.querySelector('img');
            // The page marks a card ready as it puts the frame's image in; the browser decodes it a moment later.
            const state = img && !(img.complete && img.naturalWidth > 0) ? 'decoding' : thumb.dataset.state;
            out[card.dataset.notebook] = [state, img ? img.naturalWidth : 0, img ? img.naturalHeight : 0];
        }
        return out;""")


def settled_thumbnails(driver) -> dict[str, tuple[str, int, int]] | None:
    """Every thumbnail rendered or failed, scrolling the next waiting card into view: the page renders only the
    cards in or near view."""
    driver.execute_script("""
        const waiting = document.querySelector("db-start .start-thumb[data-state='waiting']");
        if (waiting) waiting.scrollIntoView({ block: 'center' });""")
    t = thumbnails(driver)
    return t if t and all(s not in ("rendering", "waiting", "decoding") for s, _, _ in t.values()) else None


def test_the_start_page_renders_only_the_cards_in_view(depthbook_server, browser_factory):
    """Each thumbnail is a render on the photo: the cards far below the first screen wait until scrolled near."""
    browser = browser_factory(480, 400)
    browser.get(depthbook_server.base_url + "/")
    wait_for("the first card's thumbnail", lambda: any(s == "ready" for s, _, _ in thumbnails(browser).values()), timeout=180)
    time.sleep(2)
    states = [s for s, _, _ in thumbnails(browser).values()]
    assert states.count("waiting") >= 5, states
    wait_for("every thumbnail once scrolled to", lambda: settled_thumbnails(browser), timeout=240)


def test_the_start_page_shows_every_notebook_on_your_photo(depthbook_server, browser, artifacts_dir):
    """`/` lists the bundled notebooks with a thumbnail of each one's output: on the sample first, then on
    the photo this browser used last."""
    browser.get(depthbook_server.base_url + "/")
    done = wait_for("every thumbnail", lambda: settled_thumbnails(browser), timeout=180)
    assert len(done) >= 10 and "depth-threshold" in done, sorted(done)
    assert all(state == "ready" and width == 320 for state, width, _ in done.values()), done
    # A portrait's thumbnail shows the whole picture inside its 4:3 card, not a band cut from its middle.
    cut = browser.execute_script("""
        return [...document.querySelectorAll('db-start .start-thumb')].filter((thumb) => {
            const img = thumb.querySelector('img');
            if (!img) return false;
            const box = thumb.getBoundingClientRect(), r = img.getBoundingClientRect();
            const scale = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
            return r.top < box.top - 1 || r.bottom > box.bottom + 1 || img.naturalHeight * scale > box.height + 1;
        }).map((thumb) => thumb.closest('li').dataset.notebook);""")
    assert not cut, f"thumbnails cut by their cards: {cut}"
    browser.find_element(By.CSS_SELECTOR, "li.start-card[data-notebook='darken'] a").click()
    wait_for("the notebook the card links to", lambda: "/n/darken" in browser.current_url)

    drop_files(browser, [(PUG.name, PUG.read_bytes(), "image/heic")])
    wait_for("the dropped photo to open", lambda: photo_facts(browser).get("width") == 4032)
    browser.get(depthbook_server.base_url + "/")
    wait_for("the start page to name your photo", lambda: PUG.name in browser.find_element(By.CSS_SELECTOR, "db-start").text)
    done = wait_for("every thumbnail on the pug", lambda: settled_thumbnails(browser), timeout=240)
    # The pug is 4:3 landscape (the sample is 3:4 portrait): a 320-px thumbnail of it is 240 px high.
    on_pug = {name: (w, h) for name, (state, w, h) in done.items() if state == "ready"}
    assert on_pug.get("depth-threshold") == (320, 240), done
    assert len(on_pug) >= 10, done
    screenshot(browser, artifacts_dir, "start-page-your-photo")
